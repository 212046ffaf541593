import { startSentinelGroup, type SentinelGroup } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { compareFences, type RedisLockStore } from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, uniqueResource } from "../support/ids.js";
import { MemoryEpochSource } from "../support/memory-epoch-source.js";
import { openRedisStore } from "../support/redis-target.js";

let group: SentinelGroup;
const stores: RedisLockStore[] = [];

beforeAll(async () => {
  group = await startSentinelGroup();
});

afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await group?.stop();
});

test("a paused-then-resumed old master can only grant fences below every grant on the new master", async () => {
  const epochSource = new MemoryEpochSource();
  const resource = uniqueResource();
  const { store: followsSentinel } = await openRedisStore(
    { mode: "sentinel", sentinels: group.sentinels, masterName: group.masterName },
    { epochSource },
  );
  const oldMaster = await group.currentMaster();
  // A second server that keeps talking to the old master and never hears of the failover.
  const { store: stuckOnOld } = await openRedisStore(
    { mode: "standalone", url: oldMaster.url },
    { epochSource },
  );
  stores.push(followsSentinel, stuckOnOld);
  const warmup = await stuckOnOld.acquire({
    resource,
    businessKey: "k",
    holder: holder(),
    leaseMs: 3_000,
  });
  expect(warmup.granted).toBe(true);

  await group.failover({ how: "pause" });
  const onNewMaster: string[] = [];
  for (let i = 0; i < 20; i += 1) {
    const grant = await eventually(async () => {
      const r = await followsSentinel.acquire({
        resource,
        businessKey: `k${i % 3}`,
        holder: holder(),
        leaseMs: 100,
      });
      if (!r.granted) throw new Error("held");
      return r;
    });
    onNewMaster.push(grant.fence!);
    await followsSentinel.release({ resource, businessKey: `k${i % 3}`, lockId: grant.lockId });
  }

  oldMaster.resume();
  const zombieFences: string[] = [];
  for (let i = 0; i < 20; i += 1) {
    const outcome = await stuckOnOld
      .acquire({ resource, businessKey: `k${i % 3}`, holder: holder(), leaseMs: 100 })
      .catch(() => null);
    if (outcome?.granted) zombieFences.push(outcome.fence!);
  }
  // Measured here: a resumed master keeps saying role:master for ~10 s, so it does grant.
  expect(zombieFences.length).toBeGreaterThan(0);
  for (const zombie of zombieFences) {
    for (const fresh of onNewMaster) expect(compareFences(zombie, fresh)).toBeLessThan(0);
  }
});
