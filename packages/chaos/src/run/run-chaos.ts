import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { reapOrphans } from "@warden/testkit";
import type { ChaosReport } from "../checker/report.js";
import type { GuardMode, RunFacts, StuckLock } from "../checker/run-facts.js";
import { monoNow } from "../log/clock.js";
import { EventLog } from "../log/event-log.js";
import { runNemesis } from "../nemesis/run-nemesis.js";
import { startedChildren } from "../procs/managed-child.js";
import { buildSchedule, type RunMode } from "../schedule/build-schedule.js";
import type { FaultKind, RedisVariant } from "../schedule/fault-kinds.js";
import { startStack, type Stack } from "../stack/start-stack.js";
import { RECOVERY_BOUND_MS, STACK_SETTINGS } from "../stack/stack-settings.js";
import { leftovers } from "./leftovers.js";
import { checkRunDir } from "./check-run-dir.js";
import { findStuckLocks } from "./stuck-locks.js";
import { teardown } from "./teardown.js";

/** What `pnpm chaos` was asked to do. */
export interface RunOptions {
  readonly seed: number;
  readonly mode: RunMode;
  readonly guard: GuardMode;
  /** The Redis topology under the servers (default: a sentinel group). */
  readonly redis?: RedisVariant;
  /** The resources' `waitReplicas` (default 0: grants do not wait for replicas). */
  readonly waitReplicas?: number;
  /** Only these faults (debugging, the negative-control test). */
  readonly only?: readonly FaultKind[];
  /** Where run directories go; older ones beyond the last few are removed. */
  readonly runsDir: string;
  readonly signal: AbortSignal;
  /** Progress for people (stderr). */
  readonly progress: (message: string) => void;
}

const KEEP_RUNS = 6;

async function pruneRuns(runsDir: string): Promise<void> {
  const runs = (await readdir(runsDir).catch(() => [] as string[])).sort();
  for (const old of runs.slice(0, Math.max(0, runs.length - KEEP_RUNS))) {
    await rm(join(runsDir, old), { recursive: true, force: true });
  }
}

/**
 * One chaos run: start the stack, run the seeded nemesis, stop the workers, look for
 * stuck locks, tear everything down (reading the ledger first), then judge the run from
 * `events.jsonl` and the final databases alone. Everything is stopped on every path.
 */
export async function runChaos(
  options: RunOptions,
): Promise<{ report: ChaosReport; runDir: string }> {
  const redis = options.redis ?? "sentinel";
  const waitReplicas = options.waitReplicas ?? 0;
  const schedule = buildSchedule(options.seed, options.mode, options.only, redis);
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const runDir = join(
    options.runsDir,
    `${stamp}-seed${options.seed}-${options.mode}${redis === "cluster" ? "-cluster" : ""}${waitReplicas > 0 ? `-wait${waitReplicas}` : ""}${options.guard === "fence-only" ? "-fence-only" : ""}`,
  );
  await mkdir(runDir, { recursive: true });
  await pruneRuns(options.runsDir);
  await writeFile(join(runDir, "schedule.json"), `${JSON.stringify(schedule, null, 2)}\n`);
  await reapOrphans();
  const events = new EventLog(join(runDir, "events.jsonl"));
  const unsubscribe = events.subscribe((e) => {
    if (e.src === "orchestrator" && e.ev === "phase") options.progress(e.phase ?? "");
  });
  let stack: Partial<Stack> = {};
  let endMono = 0;
  let stuck: StuckLock[] = [];
  const failures: string[] = [];
  try {
    options.progress(`starting the stack in ${runDir}`);
    const started = await startStack(
      {
        runDir,
        events,
        guard: options.guard,
        seed: options.seed,
        redis,
        waitReplicas,
        fakedServer: schedule.fakedServer,
      },
      (partial) => (stack = partial),
    );
    stack = started;
    await runNemesis(started, schedule, options.signal);
    endMono = monoNow();
    events.record({ src: "orchestrator", ev: "phase", phase: "stopping workers" });
    await started.fleet.stopAll(10_000);
    stuck = await findStuckLocks(
      started.probe,
      started.resources.ledger,
      [...STACK_SETTINGS.accounts, STACK_SETTINGS.leaderAccount],
      STACK_SETTINGS.leaseMs + 2_000,
    );
  } catch (error) {
    failures.push(`run aborted: ${(error as Error).stack ?? String(error)}`);
  } finally {
    if (endMono === 0) endMono = monoNow();
    options.progress("tearing down");
    const done = await teardown(stack);
    failures.push(...done.errors);
    const facts: RunFacts = {
      seed: options.seed,
      mode: options.mode,
      guard: options.guard,
      redis,
      serverInstances: stack.servers?.length ?? 0,
      waitReplicas,
      ...(done.undoneGrants ? { undoneGrants: done.undoneGrants } : {}),
      leaseMs: STACK_SETTINGS.leaseMs,
      recoveryBoundMs: RECOVERY_BOUND_MS,
      minAcceptedWrites: STACK_SETTINGS.minAcceptedWrites,
      leaderAccount: STACK_SETTINGS.leaderAccount,
      semaphore: {
        key: STACK_SETTINGS.semaphoreKey,
        permits: STACK_SETTINGS.semaphorePermits,
        slots: STACK_SETTINGS.semaphoreSlots,
      },
      accounts: done.ledger?.accounts ?? [],
      ledger: done.ledger?.ledger ?? [],
      stuckLocks: stuck,
      processes: {
        started: startedChildren().length + done.testkitPids.length,
        stillRunning: [
          ...leftovers(startedChildren()),
          ...leftovers(done.testkitPids.map((pid) => ({ role: "testkit", id: "server", pid }))),
        ],
      },
      endMono,
    };
    await writeFile(join(runDir, "final.json"), `${JSON.stringify(facts, null, 2)}\n`);
    unsubscribe();
    await events.close();
  }
  const judged = await checkRunDir(runDir);
  const report: ChaosReport =
    failures.length === 0
      ? judged
      : {
          ...judged,
          ok: false,
          checks: [
            ...judged.checks,
            { name: "run completed", ok: false, detail: failures.join("; ") },
          ],
        };
  await writeFile(join(runDir, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
  return { report, runDir };
}
