import {
  beginSlotMove,
  onNode,
  slotOfKey,
  startCluster,
  type RedisClusterGroup,
  type RedisNode,
} from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  LockUnavailableError,
  RedisSemaphoreStore,
  compareFences,
  splitFence,
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
let semaphores: RedisSemaphoreStore;

beforeAll(async () => {
  cluster = await startCluster();
  // A command timeout longer than ioredis's redirections take, so a try that the cluster
  // kept redirecting ends with the client's answer, not with the store's deadline.
  const topology = { mode: "cluster" as const, nodes: cluster.startupNodes };
  const opened = await openRedisStore(topology, { commandTimeoutMs: 10_000 });
  store = opened.store;
  semaphores = await RedisSemaphoreStore.open({
    topology,
    epochSource: opened.epochSource,
    commandTimeoutMs: 10_000,
  });
});

afterAll(async () => {
  await semaphores?.close();
  await store?.close();
  await cluster?.stop();
});

/** The master holding the keys that match `pattern`, and one of those keys. */
async function ownerOf(pattern: string): Promise<{ node: RedisNode; key: string }> {
  for (const node of await cluster.masters()) {
    const [, found] = await onNode(node, (c) => c.scan("0", "MATCH", pattern, "COUNT", 10_000));
    if (found[0] !== undefined) return { node, key: found[0] };
  }
  throw new Error(`no master holds ${pattern}`);
}

/**
 * A try while the slot moves: refused as held (every key it needs still on the source) or
 * unavailable (keys split between the nodes: TRYAGAIN on every try). Never granted, and never
 * "outcome unknown": the cluster ran it nowhere, and the error says so.
 */
async function tryWhileMoving(attempt: Promise<{ granted: boolean }>): Promise<string> {
  try {
    const result = await attempt;
    return result.granted ? "granted" : "held";
  } catch (error) {
    expect(error).toBeInstanceOf(LockUnavailableError);
    expect((error as LockUnavailableError).retryAfterMs).toBeGreaterThan(0);
    return "unavailable";
  }
}

/**
 * Moves the slot of `someKey` (found on its master by `pattern`) to another master the way
 * `redis-cli --cluster reshard` does: IMPORTING / MIGRATING, the keys by `MIGRATE`, then
 * `SETSLOT … NODE` on every master. `meanwhile` runs at the start of the move (no key moved
 * yet) and again once `someKey` alone has moved.
 */
async function moveSlotOf(
  pattern: string,
  meanwhile: () => Promise<void>,
): Promise<{ target: RedisNode }> {
  const { node: source, key: someKey } = await ownerOf(pattern);
  const masters = await cluster.masters();
  const target = masters.find((node) => node.port !== source.port)!;
  const move = await beginSlotMove(await slotOfKey(source, someKey), source, target);
  await meanwhile();

  const keys = await move.keysLeft(1_000);
  expect(keys).toContain(someKey);
  await move.migrate([someKey]);
  await meanwhile();
  await move.migrate(keys.filter((k) => k !== someKey));
  await move.finish(masters);
  return { target };
}

test("a slot resharded to another master keeps its lease and fences the next grant above the old master's", async () => {
  const resource = uniqueResource();
  const key = { resource, businessKey: "account-7" };
  const warm = await store.acquire({ ...key, holder: holder("warm"), leaseMs: 5_000 });
  if (!warm.granted) throw new Error("the first grant was refused");
  await store.release({ ...key, lockId: warm.lockId });
  const held = await store.acquire({ ...key, holder: holder("first"), leaseMs: 30_000 });
  if (!held.granted) throw new Error("the held grant was refused");

  const { target } = await moveSlotOf(`w:{${resource}#*}:l:*`, async () => {
    expect(
      await tryWhileMoving(store.acquire({ ...key, holder: holder("mid"), leaseMs: 30_000 })),
    ).toBe("unavailable");
  });

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

test("a semaphore's slot resharded to another master keeps its permits and fences the next above", async () => {
  const resource = uniqueResource();
  const key = { resource, businessKey: "pool", totalPermits: 2 };
  const permit = (name: string) => ({ ...key, holder: holder(name), leaseMs: 30_000 });
  const held = await semaphores.acquire(permit("first"));
  if (!held.granted) throw new Error("the first permit was refused");

  await moveSlotOf(`w:{${resource}#*}:s:*`, async () => {
    expect(await tryWhileMoving(semaphores.acquire(permit("mid")))).toBe("unavailable");
  });

  // The permit moved with its remaining time: it renews and still counts against the total.
  await semaphores.extend({ resource, businessKey: "pool", lockId: held.lockId, leaseMs: 30_000 });
  const second = await eventually(async () => {
    const r = await semaphores.acquire(permit("second"));
    if (!r.granted) throw new Error("the second permit was refused");
    return r;
  }, 10_000);
  expect(second.inUse).toBe(2);
  expect((await semaphores.acquire(permit("third"))).granted).toBe(false);
  expect(compareFences(second.fence!, held.fence!)).toBeGreaterThan(0);
  expect(splitFence(second.fence!).epoch).toBeGreaterThan(splitFence(held.fence!).epoch);
  await semaphores.release({ resource, businessKey: "pool", lockId: held.lockId });
  await semaphores.release({ resource, businessKey: "pool", lockId: second.lockId });
});
