import { scriptCalls, startSentinelGroup, type SentinelGroup } from "@warden/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  InvalidArgumentError,
  ReplicationTimeoutError,
  RedisRwLockStore,
  RedisSemaphoreStore,
  type RedisLockStore,
  type RedisTopology,
  type StoreEvent,
} from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, uniqueResource } from "../support/ids.js";
import type { MemoryEpochSource } from "../support/memory-epoch-source.js";
import { openRedisStore } from "../support/redis-target.js";

// `waitReplicas` on permits and read-write grants (decision 0222): the grant's own script and
// a WAIT in one pipeline (the grants of one turn: their batch script and one WAIT, decision
// 0227); a grant too few replicas acknowledged is taken back.

let group: SentinelGroup;
let mutex: RedisLockStore;
let semaphores: RedisSemaphoreStore;
let rw: RedisRwLockStore;
let topology: RedisTopology;
let epochSource: MemoryEpochSource;
const events: StoreEvent[] = [];

beforeAll(async () => {
  group = await startSentinelGroup();
  topology = {
    mode: "sentinel" as const,
    sentinels: group.sentinels,
    masterName: group.masterName,
  };
  const opened = await openRedisStore(topology);
  epochSource = opened.epochSource;
  mutex = opened.store;
  const onEvent = (event: StoreEvent) => events.push(event);
  semaphores = await RedisSemaphoreStore.open({
    topology,
    epochSource: opened.epochSource,
    onEvent,
  });
  rw = await RedisRwLockStore.open({ topology, epochSource: opened.epochSource, onEvent });
});

afterAll(async () => {
  await semaphores?.close();
  await rw?.close();
  await mutex?.close();
  await group?.stop();
});

/** Runs `body` with every replica of the current master stopped (SIGSTOP), then resumes them. */
async function withReplicasPaused<T>(body: () => Promise<T>): Promise<T> {
  const master = await group.currentMaster();
  const replicas = group.nodes.filter((node) => node !== master);
  replicas.forEach((replica) => replica.pause());
  try {
    return await body();
  } finally {
    replicas.forEach((replica) => replica.resume());
  }
}

/** The replication-timeout events reported for `resource`'s key `businessKey`. */
function undone(resource: string, businessKey: string) {
  return events.filter(
    (event) =>
      event.type === "replication-timeout" &&
      event.resource === resource &&
      event.businessKey === businessKey,
  );
}

function permit(resource: string, businessKey: string, name: string, waitReplicas: number) {
  return {
    resource,
    businessKey,
    holder: holder(name),
    leaseMs: 30_000,
    totalPermits: 1,
    waitReplicas,
  };
}

function rwInput(resource: string, businessKey: string, name: string, waitReplicas: number) {
  return { resource, businessKey, holder: holder(name), leaseMs: 30_000, waitReplicas };
}

test("with the replicas paused, a permit that needs them is taken back and reported", async () => {
  const resource = uniqueResource();
  const outcome = await withReplicasPaused(() =>
    semaphores.acquire(permit(resource, "k", "payer", 2)).catch((e: unknown) => e),
  );
  expect(outcome).toBeInstanceOf(ReplicationTimeoutError);
  expect((outcome as ReplicationTimeoutError).required).toBe(2);
  expect((outcome as ReplicationTimeoutError).acknowledged).toBeLessThan(2);
  // Reported as the mutex's is, so the server audits it.
  expect(undone(resource, "k")).toEqual([
    expect.objectContaining({ tier: "redis", required: 2, acknowledged: 0 }),
  ]);
  const view = await semaphores.inspect({ resource, businessKey: "k" });
  expect(view.holders).toEqual([]);
  expect(view.inUse).toBe(0);
  // The key's one permit is free for the next caller.
  const next = await semaphores.acquire(permit(resource, "k", "other", 2));
  expect(next.granted).toBe(true);
});

test("with the replicas paused, a read or write grant that needs them is taken back", async () => {
  const resource = uniqueResource();
  const [write, read] = await withReplicasPaused(() =>
    Promise.all([
      rw.acquireWrite(rwInput(resource, "w", "writer", 1)).catch((e: unknown) => e),
      rw.acquireRead(rwInput(resource, "r", "reader", 1)).catch((e: unknown) => e),
    ]),
  );
  expect(write).toBeInstanceOf(ReplicationTimeoutError);
  expect(read).toBeInstanceOf(ReplicationTimeoutError);
  expect(undone(resource, "w")).toEqual([expect.objectContaining({ entryOnly: false })]);
  expect(undone(resource, "r")).toHaveLength(1);
  // Nothing live on either key.
  expect(await rw.inspect({ resource, businessKey: "w" })).toBeNull();
  expect(await rw.inspect({ resource, businessKey: "r" })).toBeNull();
  expect((await rw.acquireWrite(rwInput(resource, "r", "other", 2))).granted).toBe(true);
});

test("permits, fair permits and read grants of one turn that wait for replicas share batches and WAITs", async () => {
  const resource = uniqueResource();
  const fair = (name: string) => ({ waiterId: name, heartbeatMs: 5_000 });
  const turn = (tag: string) =>
    Promise.all([
      ...[1, 2, 3].map((i) => semaphores.acquire(permit(resource, `${tag}-p${i}`, "p", 2))),
      ...[1, 2, 3].map((i) =>
        semaphores.acquire({
          ...permit(resource, `${tag}-f${i}`, `f${i}`, 2),
          fair: fair(`${tag}-f${i}`),
        }),
      ),
      ...[1, 2, 3].map((i) => rw.acquireRead(rwInput(resource, `${tag}-r${i}`, "r", 2))),
    ]);
  // A turn first, so the batch scripts are loaded and each call below is one EVALSHA.
  await turn("warm");
  const raw = new Redis((await group.currentMaster()).url);
  try {
    const calls = async () => {
      const stats = await raw.info("commandstats");
      const waits = Number(/^cmdstat_wait:calls=(\d+)/m.exec(stats)?.[1] ?? 0);
      return { scripts: await scriptCalls(raw), waits };
    };
    const before = await calls();
    const grants = await turn("k");
    const after = await calls();
    // For each of the three scripts: the first call alone, the other two in one call, each
    // pipeline with its own WAIT.
    expect(after.scripts - before.scripts).toBe(6);
    expect(after.waits - before.waits).toBe(6);
    for (const grant of grants) expect(grant.granted).toBe(true);
  } finally {
    raw.disconnect();
  }
});

test("a permit or read grant waiting for stopped replicas holds up no call that needs none", async () => {
  // A long WAIT: on the stores' own connections it would outlast the plain calls' 1 s deadline.
  const slowSemaphores = await RedisSemaphoreStore.open({
    topology,
    epochSource,
    waitReplicasTimeoutMs: 3_000,
  });
  const slowRw = await RedisRwLockStore.open({
    topology,
    epochSource,
    waitReplicasTimeoutMs: 3_000,
  });
  try {
    const resource = uniqueResource();
    await withReplicasPaused(async () => {
      const waited = [
        slowSemaphores.acquire(permit(resource, "p-waits", "w", 2)).catch((e: unknown) => e),
        slowRw.acquireRead(rwInput(resource, "r-waits", "w", 2)).catch((e: unknown) => e),
      ];
      // Sent after the grants that wait: granted and released while their WAITs run.
      const permitted = await slowSemaphores.acquire(permit(resource, "p-plain", "p", 0));
      if (!permitted.granted) throw new Error("the plain permit was refused");
      await slowSemaphores.release({ resource, businessKey: "p-plain", lockId: permitted.lockId });
      const read = await slowRw.acquireRead(rwInput(resource, "r-plain", "p", 0));
      if (!read.granted) throw new Error("the plain read was refused");
      await slowRw.release({ resource, businessKey: "r-plain", lockId: read.lockId });
      for (const outcome of await Promise.all(waited)) {
        expect(outcome).toBeInstanceOf(ReplicationTimeoutError);
      }
    });
  } finally {
    await slowSemaphores.close();
    await slowRw.close();
  }
});

test("an unacknowledged re-entry gives back only its own entry", async () => {
  const resource = uniqueResource();
  // One holder twice: the second read re-enters the first grant.
  const input = rwInput(resource, "k", "reader", 2);
  const first = await rw.acquireRead(input);
  if (!first.granted) throw new Error("the first read was refused");
  const again = await withReplicasPaused(() => rw.acquireRead(input).catch((e: unknown) => e));
  expect(again).toBeInstanceOf(ReplicationTimeoutError);
  expect(undone(resource, "k")).toEqual([
    expect.objectContaining({ lockId: first.lockId, entryOnly: true }),
  ]);
  const view = await rw.inspect({ resource, businessKey: "k" });
  expect(view?.readers.map((r) => [r.lockId, r.reentry])).toEqual([[first.lockId, 1]]);
  const released = await rw.release({ resource, businessKey: "k", lockId: first.lockId });
  expect(released).toMatchObject({ released: true, reentry: 0 });
});

test("acknowledged permits and grants are granted and outlive a failover", async () => {
  const resource = uniqueResource();
  const held = await semaphores.acquire(permit(resource, "permit", "payer", 2));
  const written = await rw.acquireWrite(rwInput(resource, "rw", "writer", 2));
  if (!held.granted || !written.granted) throw new Error("refused before the failover");

  await group.failover({ how: "kill" });

  // The promoted replica had both: the key's one permit and the write grant are still taken.
  const refused = await eventually(async () =>
    semaphores.acquire(permit(resource, "permit", "other", 0)),
  );
  expect(refused.granted).toBe(false);
  expect((await semaphores.inspect({ resource, businessKey: "permit" })).holders).toEqual([
    expect.objectContaining({ lockId: held.lockId }),
  ]);
  const blocked = await rw.acquireRead(rwInput(resource, "rw", "reader", 0));
  expect(blocked.granted).toBe(false);
  expect((await rw.inspect({ resource, businessKey: "rw" }))?.writer?.lockId).toBe(written.lockId);
});

test("a bad waitReplicas is refused before anything is sent", async () => {
  const resource = uniqueResource();
  for (const waitReplicas of [-1, 1.5, 17]) {
    await expect(semaphores.acquire(permit(resource, "k", "a", waitReplicas))).rejects.toThrow(
      InvalidArgumentError,
    );
    await expect(rw.acquireWrite(rwInput(resource, "k", "a", waitReplicas))).rejects.toThrow(
      InvalidArgumentError,
    );
  }
  expect((await semaphores.inspect({ resource, businessKey: "k" })).holders).toEqual([]);
  expect(await rw.inspect({ resource, businessKey: "k" })).toBeNull();
});
