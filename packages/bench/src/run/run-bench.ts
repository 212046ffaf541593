import { loadavg } from "node:os";
import { reapOrphans, stopAllStarted } from "@warden/testkit";
import type { BenchEnv } from "../env.js";
import { CleanupStack } from "../infra/cleanup-stack.js";
import { machineInfo } from "../infra/machine-info.js";
import type { Revision } from "../infra/revision.js";
import type { BenchPlan } from "../plan/bench-plan.js";
import type { BenchReport } from "../report/bench-report.js";
import { evaluateTargets } from "../report/targets.js";
import { prepareEnvironment } from "./environment.js";
import { measureMemory } from "./measure-memory.js";
import { runRounds } from "./run-rounds.js";
import { SlotProfiles } from "./slot-profiles.js";

/** Options of {@link runBench}. */
export interface RunBenchOptions {
  readonly plan: BenchPlan;
  readonly env: BenchEnv;
  /** The command line as the report quotes it. */
  readonly command: string;
  /** The code being measured. */
  readonly revision: Revision;
  /** Where CPU profiles of the measured slots go (`--profile`); null: not profiled. */
  readonly profileDir: string | null;
  /** Ctrl-C: stops between slots and cleans up. */
  readonly signal: AbortSignal;
  readonly log: (line: string) => void;
}

/**
 * One whole run: environment up, interleaved rounds, memory, targets — and everything
 * it started stopped again (children, servers, databases), whether it succeeded, threw
 * or was interrupted.
 */
export async function runBench(options: RunBenchOptions): Promise<BenchReport> {
  const { plan, signal, log } = options;
  const startedAt = new Date().toISOString();
  const loadStart = loadavg();
  const cleanup = new CleanupStack();
  cleanup.push("stop Redis and MariaDB", () => stopAllStarted());
  try {
    await reapOrphans();
    const environment = await prepareEnvironment({ ...options, cleanup });
    const machine = await machineInfo(environment.stores.redisUrl, environment.stores.appDb.url);
    signal.throwIfAborted();
    const profiles = options.profileDir === null ? null : new SlotProfiles(options.profileDir);
    const runs = await runRounds(environment, plan, signal, log, profiles);
    signal.throwIfAborted();
    const memory = await measureMemory(environment, plan.memory, signal, log, profiles);
    return {
      command: options.command,
      revision: options.revision,
      mode: plan.mode,
      startedAt,
      finishedAt: new Date().toISOString(),
      machine,
      loadAverage: { start: loadStart, end: loadavg() },
      plan: {
        rounds: plan.rounds,
        roundMs: plan.roundMs,
        warmupMs: plan.warmupMs,
        leaseMs: plan.leaseMs,
      },
      runs,
      redisMemory: memory.redis,
      serverMemory: memory.server,
      targets: evaluateTargets(runs, {
        redisBytesPerLock: memory.redis.wardenBytesPerLock,
        bareKeyBytes: memory.redis.bareBytesPerLock,
        renewalCallsPerClientPerSec:
          memory.server.renewalCallsPerSec / Math.max(1, memory.server.waiterClients),
      }),
      profiles: profiles?.summaries() ?? [],
    };
  } finally {
    log("stopping everything the bench started");
    const failures = await cleanup.runAll();
    for (const failure of failures) log(`cleanup: ${failure}`);
  }
}
