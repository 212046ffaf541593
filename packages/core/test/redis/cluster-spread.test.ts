import { startCluster, type RedisClusterGroup } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { NotHolderError, compareFences, type RedisLockStore } from "../../src/index.js";
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

test("a grant lost in a cluster failover is reissued on the promoted replica with a greater fence", async () => {
  const resource = uniqueResource();
  const key = { resource, businessKey: "settle" };
  for (const node of cluster.nodes) if (node.state === "exited") await node.restart();
  const warm = await eventually(async () => {
    const r = await store.acquire({ ...key, holder: holder(), leaseMs: 5_000, waitReplicas: 1 });
    if (!r.granted) throw new Error("held");
    return r;
  }, 15_000);
  await store.release({ ...key, lockId: warm.lockId });
  const owner = await findOwner(await cluster.masters(), `w:{${resource}#`);
  const admin = owner.client();
  let replica: (typeof cluster.nodes)[number] | undefined;
  try {
    const [, , links] = (await admin.call("ROLE")) as [string, number, [string, string][]];
    const ports = new Set(links.map(([, port]) => Number(port)));
    replica = cluster.nodes.find((node) => ports.has(node.port));
    if (!replica) throw new Error("the key's master has no replica");
    // Frozen, then cut off: nothing the master writes from now on reaches the replica.
    replica.pause();
    expect(Number(await admin.call("CLIENT", "KILL", "TYPE", "replica"))).toBeGreaterThan(0);
  } finally {
    admin.disconnect();
  }
  const lost = await store.acquire({ ...key, holder: holder("first"), leaseMs: 30_000 });
  if (!lost.granted) throw new Error("the first grant was refused");
  await owner.kill9();
  replica.resume();

  const second = await eventually(async () => {
    const r = await store.acquire({ ...key, holder: holder("second"), leaseMs: 30_000 });
    if (!r.granted) throw new Error(`not granted: held by ${r.holder.clientId}`);
    return r;
  }, 30_000);
  expect(compareFences(second.fence!, lost.fence!)).toBeGreaterThan(0);
  await expect(store.extend({ ...key, lockId: lost.lockId, leaseMs: 30_000 })).rejects.toEqual(
    expect.objectContaining({ constructor: NotHolderError, reason: "other-holder" }),
  );
  expect((await store.inspect(key))?.lockId).toBe(second.lockId);
  await owner.restart();
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
