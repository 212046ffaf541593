import { setTimeout as sleep } from "node:timers/promises";
import {
  measureRedisBytesPerLock,
  type RedisMemoryResult,
} from "../memory/redis-bytes-per-lock.js";
import type { MemoryPlan } from "../plan/bench-plan.js";
import type { ServerMemoryResult } from "../report/bench-report.js";
import { processRssMb } from "../stats/proc-stat.js";
import type { BenchEnvironment } from "./environment.js";
import type { SlotProfiles } from "./slot-profiles.js";

/** Time the idle server gets to settle before its baseline RSS is read, in ms. */
const SETTLE_MS = 2_000;

/**
 * Redis bytes per lock (core store against bare keys), then the server's RSS under held
 * locks and the holders' renewals; with `profiles`, the server is CPU-profiled over the
 * renewal window.
 */
export async function measureMemory(
  environment: BenchEnvironment,
  memory: MemoryPlan,
  signal: AbortSignal,
  log: (line: string) => void,
  profiles: SlotProfiles | null,
): Promise<{ redis: RedisMemoryResult; server: ServerMemoryResult }> {
  log(`memory: ${memory.redisLocks} Redis locks through the core store, then as bare keys`);
  const redis = await measureRedisBytesPerLock(
    environment.stores.redisUrl,
    environment.stores.coreDb.url,
    memory.redisLocks,
  );
  signal.throwIfAborted();
  await sleep(SETTLE_MS);
  const baselineRssMb = processRssMb(environment.server.pid);
  log(
    `memory: ${memory.serverLocks} locks and ${memory.waiters} waiters on the server from ` +
      `${memory.waiterClients} SDK clients`,
  );
  const held = await environment.loadgen.hold(
    memory.serverLocks,
    memory.waiters,
    memory.waiterClients,
  );
  const rssMb = processRssMb(environment.server.pid);
  if (baselineRssMb === null || rssMb === null) throw new Error("the server process is gone");
  signal.throwIfAborted();
  log("memory: the holding clients' renewals over a third of the lease");
  if (profiles) await environment.server.startProfile();
  const renewals = await environment.loadgen.renewals();
  if (profiles) {
    await profiles.recordPhase("memory-renewals", "server", await environment.server.stopProfile());
  }
  return {
    redis,
    server: {
      baselineRssMb,
      rssMb,
      requestedLocks: held.requested,
      liveLocks: held.locks,
      rssPerLockKb: held.locks > 0 ? ((rssMb - baselineRssMb) * 1024) / held.locks : 0,
      waiters: held.waiters,
      waiterClients: memory.waiterClients,
      holdAcquireMs: held.acquireMs,
      holdGrantsPerSec: held.acquireMs > 0 ? (held.granted / held.acquireMs) * 1000 : 0,
      renewalCallsPerSec: (renewals.commands / renewals.windowMs) * 1000,
      renewedLeasesPerSec: (renewals.leases / renewals.windowMs) * 1000,
    },
  };
}
