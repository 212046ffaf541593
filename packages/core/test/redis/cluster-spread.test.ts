import { startCluster, type RedisClusterGroup } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { compareFences, type RedisLockStore } from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openRedisStore } from "../support/redis-target.js";

let cluster: RedisClusterGroup;
let store: RedisLockStore;

beforeAll(async () => {
  cluster = await startCluster();
  ({ store } = await openRedisStore({ mode: "cluster", nodes: cluster.startupNodes }));
});

afterAll(async () => {
  await store?.close();
  await cluster?.stop();
});

test("one resource's leases spread over every master, and list returns them all", async () => {
  const resource = uniqueResource();
  const keys = Array.from({ length: 300 }, (_, i) => `order-${i}`);
  for (const businessKey of keys) {
    const grant = await store.acquire({ resource, businessKey, holder: holder(), leaseMs: 20_000 });
    expect(grant.granted).toBe(true);
  }
  for (const master of await cluster.masters()) {
    const client = master.client();
    try {
      const [, found] = await client.scan("0", "MATCH", `w:{${resource}#*}:l:*`, "COUNT", 10_000);
      expect(found.length, `${master.url} holds some of the resource`).toBeGreaterThan(0);
    } finally {
      client.disconnect();
    }
  }
  const listed = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await store.list({ resource, limit: 50, ...(cursor ? { cursor } : {}) });
    page.leases.forEach((lease) => listed.add(lease.businessKey));
    cursor = page.cursor ?? undefined;
  } while (cursor);
  expect(listed).toEqual(new Set(keys));
});

test("after a cluster failover the key's fence still grows", async () => {
  const resource = uniqueResource();
  const key = { resource, businessKey: "hot" };
  const first = await store.acquire({ ...key, holder: holder(), leaseMs: 200 });
  if (!first.granted) throw new Error("not granted");
  await store.release({ ...key, lockId: first.lockId });
  const masters = await cluster.masters();
  const slotOwner = await findOwner(masters, `w:{${resource}#`);
  await cluster.failoverMaster(slotOwner, { how: "kill" });
  const second = await eventually(async () => {
    const r = await store.acquire({ ...key, holder: holder(), leaseMs: 1_000 });
    if (!r.granted) throw new Error("held");
    return r;
  }, 20_000);
  expect(compareFences(second.fence!, first.fence!)).toBeGreaterThan(0);
});

test("after a cluster failover a grant that waits for a replica reaches the key's new master", async () => {
  const resource = uniqueResource();
  const key = { resource, businessKey: "replicated" };
  // Every master has its replica again (an earlier test's failover left one without).
  for (const node of cluster.nodes) if (node.state === "exited") await node.restart();
  const first = await eventually(async () => {
    const r = await store.acquire({ ...key, holder: holder(), leaseMs: 200, waitReplicas: 1 });
    if (!r.granted) throw new Error("held");
    return r;
  }, 15_000);
  await store.release({ ...key, lockId: first.lockId });
  const owner = await findOwner(await cluster.masters(), `w:{${resource}#`);
  await cluster.failoverMaster(owner, { how: "kill" });
  // Back as the promoted node's replica, so the new master has one to acknowledge grants.
  await owner.restart();
  // Only grants that wait for replicas reach this slot: a plain command's redirection
  // (which ioredis follows and learns from) cannot correct the client's slot map for them.
  const second = await eventually(async () => {
    const r = await store.acquire({ ...key, holder: holder(), leaseMs: 1_000, waitReplicas: 1 });
    if (!r.granted) throw new Error("held");
    return r;
  }, 15_000);
  expect(compareFences(second.fence!, first.fence!)).toBeGreaterThan(0);
});

async function findOwner(
  masters: Awaited<ReturnType<RedisClusterGroup["masters"]>>,
  prefix: string,
) {
  for (const master of masters) {
    const client = master.client();
    try {
      const [, found] = await client.scan("0", "MATCH", `${prefix}*`, "COUNT", 10_000);
      if (found.length > 0) return master;
    } finally {
      client.disconnect();
    }
  }
  throw new Error("no master holds the key's shard");
}
