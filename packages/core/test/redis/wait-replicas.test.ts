import { startSentinelGroup, type SentinelGroup } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ReplicationTimeoutError, type RedisLockStore, type StoreEvent } from "../../src/index.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openRedisStore } from "../support/redis-target.js";

let group: SentinelGroup;
let store: RedisLockStore;
let events: StoreEvent[];

beforeAll(async () => {
  group = await startSentinelGroup();
  ({ store, events } = await openRedisStore({
    mode: "sentinel",
    sentinels: group.sentinels,
    masterName: group.masterName,
  }));
});

afterAll(async () => {
  await store?.close();
  await group?.stop();
});

test("a grant acknowledged by the required replicas succeeds", async () => {
  const key = { resource: uniqueResource(), businessKey: "k" };
  const grant = await store.acquire({ ...key, holder: holder(), leaseMs: 5_000, waitReplicas: 2 });
  expect(grant.granted).toBe(true);
});

test("with the replicas paused, a grant that needs them is undone and reported, not granted", async () => {
  const key = { resource: uniqueResource(), businessKey: "k" };
  const master = await group.currentMaster();
  const replicas = group.nodes.filter((node) => node !== master);
  replicas.forEach((replica) => replica.pause());
  try {
    const outcome = await store
      .acquire({ ...key, holder: holder(), leaseMs: 5_000, waitReplicas: 2 })
      .catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(ReplicationTimeoutError);
    expect((outcome as ReplicationTimeoutError).acknowledged).toBeLessThan(2);
    expect(await store.inspect(key)).toBeNull();
  } finally {
    replicas.forEach((replica) => replica.resume());
  }
  const other = await store.acquire({ ...key, holder: holder("other"), leaseMs: 1_000 });
  expect(other.granted).toBe(true);
});

test("an unacknowledged re-entry gives back only its own entry, and its event says so", async () => {
  const key = { resource: uniqueResource(), businessKey: "k" };
  const owner = holder();
  const first = await store.acquire({ ...key, holder: owner, leaseMs: 5_000, waitReplicas: 2 });
  if (!first.granted) throw new Error("the first grant was refused");
  await withReplicasPaused(async () => {
    const again = await store
      .acquire({ ...key, holder: owner, leaseMs: 5_000, waitReplicas: 2 })
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ReplicationTimeoutError);
  });
  expect(await store.inspect(key)).toMatchObject({ lockId: first.lockId, reentry: 1 });
  const undone = events.filter(
    (event) => event.type === "replication-timeout" && event.resource === key.resource,
  );
  expect(undone).toEqual([
    expect.objectContaining({ lockId: first.lockId, required: 2, entryOnly: true }),
  ]);
  await store.release({ ...key, lockId: first.lockId });
  expect(await store.inspect(key)).toBeNull();
});

/** Runs `body` with every replica of the current master stopped (SIGSTOP), then resumes them. */
async function withReplicasPaused(body: () => Promise<void>): Promise<void> {
  const master = await group.currentMaster();
  const replicas = group.nodes.filter((node) => node !== master);
  replicas.forEach((replica) => replica.pause());
  try {
    await body();
  } finally {
    replicas.forEach((replica) => replica.resume());
  }
}
