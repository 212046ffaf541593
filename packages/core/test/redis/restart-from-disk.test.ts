import { startRedis, type StandaloneRedis } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { compareFences, splitFence, type Grant, type RedisLockStore } from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openRedisStore } from "../support/redis-target.js";

// A Redis master that restarts comes back with what its disk had: nothing (persistence off),
// or a snapshot older than its last writes, in which the shard's fence counter is behind
// the fences it handed out. Either way it comes back with a new replication id (Redis mints
// one at every start), so the epoch record it carries no longer matches and the store binds
// a new epoch before it grants: every later fence is above every earlier one.

let redis: StandaloneRedis;
let store: RedisLockStore;

beforeAll(async () => {
  redis = await startRedis();
  ({ store } = await openRedisStore({ mode: "standalone", url: redis.url }));
});

afterAll(async () => {
  await store?.close();
  await redis?.stop();
});

async function cycles(resource: string, count: number): Promise<Grant[]> {
  const grants: Grant[] = [];
  for (let i = 0; i < count; i += 1) {
    const g = await store.acquire({ resource, businessKey: "k", holder: holder(), leaseMs: 5_000 });
    if (!g.granted) throw new Error("refused");
    await store.release({ resource, businessKey: "k", lockId: g.lockId });
    grants.push(g);
  }
  return grants;
}

/** The first grant once the restarted node answers again. */
function grantAfterRestart(resource: string): Promise<Grant> {
  return eventually(async () => {
    const g = await store.acquire({ resource, businessKey: "k", holder: holder(), leaseMs: 5_000 });
    if (!g.granted) throw new Error("refused");
    return g;
  }, 15_000);
}

const replId = async (): Promise<string> => {
  const client = redis.client();
  try {
    return /master_replid:(\w+)/.exec(await client.info("replication"))![1]!;
  } finally {
    client.disconnect();
  }
};

test("a master restarted with nothing on disk fences above every grant before", async () => {
  const resource = uniqueResource();
  // Persistence is off and nothing has been saved yet: the node restarts empty.
  const before = await cycles(resource, 3);
  await redis.kill9();
  await redis.restart();
  const next = await grantAfterRestart(resource);
  for (const g of before) expect(compareFences(next.fence!, g.fence!)).toBeGreaterThan(0);
});

test("a master restarted from a snapshot older than its last grants fences above all of them", async () => {
  const resource = uniqueResource();
  await cycles(resource, 2);
  const admin = redis.client();
  try {
    // The snapshot: counter and epoch record as they are now. The grants after it are lost.
    await admin.save();
  } finally {
    admin.disconnect();
  }
  const lost = await cycles(resource, 5);
  const before = await replId();
  await redis.kill9();
  await redis.restart();
  expect(await replId()).not.toBe(before);

  const next = await grantAfterRestart(resource);
  for (const g of lost) expect(compareFences(next.fence!, g.fence!)).toBeGreaterThan(0);
  expect(splitFence(next.fence!).epoch).toBeGreaterThan(splitFence(lost.at(-1)!.fence!).epoch);
});
