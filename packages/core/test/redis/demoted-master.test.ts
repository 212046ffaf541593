import { startRedis, type StandaloneRedis } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { LockUnavailableError, compareFences, type RedisLockStore } from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openRedisStore } from "../support/redis-target.js";

// A node the store writes to turns into a replica (a failover demoted it, and the client
// has not followed yet): every script is refused READONLY at its first write, and so is the
// binding of a new epoch to it. That is a refusal for a passing state, which says when to
// retry (decision 0232); once the node is a master again, grants resume above every earlier
// fence.

let node: StandaloneRedis;
let other: StandaloneRedis;
let store: RedisLockStore;
let epochs: { current(): Promise<number> };

beforeAll(async () => {
  [node, other] = await Promise.all([startRedis(), startRedis()]);
  ({ store, epochSource: epochs } = await openRedisStore({ mode: "standalone", url: node.url }));
});

afterAll(async () => {
  await store?.close();
  await Promise.all([node?.stop(), other?.stop()]);
});

test("a master turned replica refuses with READONLY and a retryAfterMs; promoted again, it fences above", async () => {
  const key = { resource: uniqueResource(), businessKey: "k" };
  const first = await store.acquire({ ...key, holder: holder("a"), leaseMs: 5_000 });
  if (!first.granted) throw new Error("the first grant was refused");
  await store.release({ ...key, lockId: first.lockId });

  const admin = node.client();
  try {
    // The node now holds `other`'s data set (no epoch record) and refuses writes: the store
    // mints an epoch for it and fails to bind it there.
    await admin.replicaof(other.host, other.port);
    // Until its first sync ends the node still has its own data set (and answers READONLY
    // or LOADING without needing an epoch); wait for the new one.
    await eventually(async () => {
      expect(await admin.info("replication")).toMatch(/master_link_status:up/);
    }, 10_000);
    const before = await epochs.current();
    const refusals = [];
    for (let i = 0; i < 10; i += 1) {
      refusals.push(
        await store
          .acquire({ ...key, holder: holder("b"), leaseMs: 5_000 })
          .catch((e: unknown) => e),
      );
    }
    for (const refused of refusals) {
      expect(refused).toBeInstanceOf(LockUnavailableError);
      expect(refused).toMatchObject({ reason: "store-unavailable" });
      expect((refused as LockUnavailableError).retryAfterMs).toBeGreaterThan(0);
    }
    expect((refusals[0] as Error).message).toMatch(/READONLY/);
    // Ten refusals in a row (a few ms) spent one epoch, not ten: the node's next mint waits
    // 250 ms, then 500 (two allowed, for a box slow enough to pass the first wait).
    expect(await epochs.current()).toBeGreaterThan(before);
    expect(await epochs.current()).toBeLessThanOrEqual(before + 2);

    await admin.replicaof("NO", "ONE");
    const next = await eventually(async () => {
      const result = await store.acquire({ ...key, holder: holder("b"), leaseMs: 5_000 });
      if (!result.granted) throw new Error("refused");
      return result;
    }, 10_000);
    expect(compareFences(next.fence!, first.fence!)).toBeGreaterThan(0);
  } finally {
    admin.disconnect();
  }
});
