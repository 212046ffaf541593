import { startCluster, type RedisClusterGroup, type RedisNode } from "@warden/testkit";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  LockUnavailableError,
  compareFences,
  splitFence,
  type AcquireResult,
  type RedisLockStore,
} from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openRedisStore } from "../support/redis-target.js";

// Resharding moves a slot's keys from one master to another while both serve: the lease, the
// shard's fence counter and the slot's epoch record travel one by one (MIGRATE), and the
// cluster answers ASK or TRYAGAIN for a script whose keys are split between the two nodes.
// The fence guarantee must hold across the move: nothing granted twice while it runs, and
// the first grant on the new master fenced above every grant of the old one.

let cluster: RedisClusterGroup;
let store: RedisLockStore;

beforeAll(async () => {
  cluster = await startCluster();
  // A command timeout longer than ioredis's redirections take, so a try that the cluster
  // kept redirecting ends with the client's answer, not with the store's deadline.
  ({ store } = await openRedisStore(
    { mode: "cluster", nodes: cluster.startupNodes },
    { commandTimeoutMs: 10_000 },
  ));
});

afterAll(async () => {
  await store?.close();
  await cluster?.stop();
});

/** Runs `use` with a plain connection to `node`, closed afterwards. */
async function onNode<T>(node: RedisNode, use: (client: Redis) => Promise<T>): Promise<T> {
  const client = node.client();
  try {
    return await use(client);
  } finally {
    client.disconnect();
  }
}

/** The master holding the keys that match `pattern`, and one of those keys. */
async function ownerOf(pattern: string): Promise<{ node: RedisNode; key: string }> {
  for (const node of await cluster.masters()) {
    const [, found] = await onNode(node, (c) => c.scan("0", "MATCH", pattern, "COUNT", 10_000));
    if (found[0] !== undefined) return { node, key: found[0] };
  }
  throw new Error(`no master holds ${pattern}`);
}

const myId = (node: RedisNode) => onNode(node, (c) => c.call("CLUSTER", "MYID") as Promise<string>);

/**
 * A try while the slot moves: refused as held (every key it needs still on the source) or
 * unavailable (keys split between the nodes: TRYAGAIN on every try). Never granted, and never
 * "outcome unknown": the cluster ran it nowhere, and the error says so.
 */
async function tryWhileMoving(attempt: Promise<AcquireResult>): Promise<string> {
  try {
    const result = await attempt;
    return result.granted ? "granted" : "held";
  } catch (error) {
    expect(error).toBeInstanceOf(LockUnavailableError);
    expect((error as LockUnavailableError).retryAfterMs).toBeGreaterThan(0);
    return "unavailable";
  }
}

test("a slot resharded to another master keeps its lease and fences the next grant above the old master's", async () => {
  const resource = uniqueResource();
  const key = { resource, businessKey: "account-7" };
  const warm = await store.acquire({ ...key, holder: holder("warm"), leaseMs: 5_000 });
  if (!warm.granted) throw new Error("the first grant was refused");
  await store.release({ ...key, lockId: warm.lockId });
  const held = await store.acquire({ ...key, holder: holder("first"), leaseMs: 30_000 });
  if (!held.granted) throw new Error("the held grant was refused");

  const { node: source, key: leaseKey } = await ownerOf(`w:{${resource}#*}:l:*`);
  const slot = await onNode(
    source,
    (c) => c.call("CLUSTER", "KEYSLOT", leaseKey) as Promise<number>,
  );
  const masters = await cluster.masters();
  const target = masters.find((node) => node.port !== source.port)!;
  const [sourceId, targetId] = [await myId(source), await myId(target)];

  // The move begins: the target imports the slot, the source migrates it; no key moved yet.
  await onNode(target, (c) => c.call("CLUSTER", "SETSLOT", slot, "IMPORTING", sourceId));
  await onNode(source, (c) => c.call("CLUSTER", "SETSLOT", slot, "MIGRATING", targetId));
  expect(
    await tryWhileMoving(store.acquire({ ...key, holder: holder("mid"), leaseMs: 30_000 })),
  ).toBe("unavailable");

  // Half of the slot's keys moved (the lease first, the counter and epoch record later): a
  // script that needs keys on both nodes cannot run on either.
  const keys = await onNode(
    source,
    (c) => c.call("CLUSTER", "GETKEYSINSLOT", slot, 1_000) as Promise<string[]>,
  );
  expect(keys).toContain(leaseKey);
  const migrate = (moved: string[]) =>
    onNode(source, (c) =>
      c.call("MIGRATE", target.host, target.port, "", 0, 5_000, "KEYS", ...moved),
    );
  await migrate([leaseKey]);
  expect(
    await tryWhileMoving(store.acquire({ ...key, holder: holder("mid"), leaseMs: 30_000 })),
  ).toBe("unavailable");
  await migrate(keys.filter((k) => k !== leaseKey));

  // The move ends: every master learns that the target owns the slot.
  for (const node of [target, source, ...masters.filter((n) => n !== target && n !== source)]) {
    await onNode(node, (c) => c.call("CLUSTER", "SETSLOT", slot, "NODE", targetId));
  }

  // The lease moved with its remaining time: still held by its holder, who can renew it.
  const refused = await eventually(async () => {
    const r = await store.acquire({ ...key, holder: holder("second"), leaseMs: 5_000 });
    if (r.granted) throw new Error("granted while the moved lease is live");
    return r;
  }, 10_000);
  expect(refused.holder.clientId).toBe(held.holder.clientId);
  await store.extend({ ...key, lockId: held.lockId, leaseMs: 30_000 });
  await store.release({ ...key, lockId: held.lockId });

  // The target holds the slot's records, bound to the source's replication id: it refuses
  // to mint at that epoch and binds a new one, so its first fence is above the source's.
  const next = await eventually(async () => {
    const r = await store.acquire({ ...key, holder: holder("second"), leaseMs: 5_000 });
    if (!r.granted) throw new Error(`not granted: held by ${r.holder.clientId}`);
    return r;
  }, 10_000);
  expect(compareFences(next.fence!, held.fence!)).toBeGreaterThan(0);
  expect(splitFence(next.fence!).epoch).toBeGreaterThan(splitFence(held.fence!).epoch);
  expect((await ownerOf(`w:{${resource}#*}:l:*`)).node.port).toBe(target.port);
  await store.release({ ...key, lockId: next.lockId });
});
