import { startSentinelGroup, type SentinelGroup } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ReplicationTimeoutError, type RedisLockStore } from "../../src/index.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openRedisStore } from "../support/redis-target.js";

let group: SentinelGroup;
let store: RedisLockStore;

beforeAll(async () => {
  group = await startSentinelGroup();
  ({ store } = await openRedisStore({
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
