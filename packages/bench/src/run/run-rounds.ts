import type { BenchPlan, CellSpec } from "../plan/bench-plan.js";
import { buildSchedule, type Slot } from "../plan/schedule.js";
import { serverTierOf } from "../plan/variants.js";
import { formatRate } from "../report/format-number.js";
import { cpuDelta, cpuSnapshot } from "../stats/proc-stat.js";
import type { SlotResult } from "../stats/slot-result.js";
import { summarizeCell, type CellResult } from "../stats/summarize-cell.js";
import type { BenchEnvironment } from "./environment.js";
import type { SlotProfiles } from "./slot-profiles.js";

async function startProfiles(environment: BenchEnvironment, server: boolean): Promise<void> {
  await environment.loadgen.startProfile();
  if (server) await Promise.all(environment.servers.map((instance) => instance.startProfile()));
}

async function stopProfiles(
  environment: BenchEnvironment,
  server: boolean,
  slot: Slot,
  profiles: SlotProfiles,
): Promise<void> {
  const { variant, concurrency, keys } = slot.cell;
  const loadgen = await environment.loadgen.stopProfile();
  await profiles.record(variant, "loadgen", slot.round, concurrency, keys, loadgen);
  if (!server) return;
  // Every instance the bench started: in a fleet cell each one serves a share of the
  // clients and follows the others' lock events, so the fleet's CPU is the sum.
  const sampled = await Promise.all(environment.servers.map((instance) => instance.stopProfile()));
  for (const [index, profile] of sampled.entries()) {
    await profiles.record(variant, "server", slot.round, concurrency, keys, profile, index + 1);
  }
}

function cellKey(cell: CellSpec): string {
  return `${cell.variant}/${cell.concurrency}/${cell.keys}`;
}

/**
 * Runs the plan's schedule slot by slot, pinning the server's tier before a variant that
 * needs the other one, and reading every process's CPU around each slot. Warm-up slots
 * are run and dropped. Checks `signal` between slots, so Ctrl-C stops within one slot.
 * With `profiles`, the load generator (and the server, for variants that use it) are
 * CPU-profiled during every measured slot.
 */
export async function runRounds(
  environment: BenchEnvironment,
  plan: BenchPlan,
  signal: AbortSignal,
  log: (line: string) => void,
  profiles: SlotProfiles | null,
): Promise<CellResult[]> {
  const schedule = buildSchedule(plan);
  const measured = new Map<string, SlotResult[]>();
  let tier: "redis" | "mysql" = "redis";
  for (const [index, slot] of schedule.entries()) {
    signal.throwIfAborted();
    const wanted = serverTierOf(slot.cell.variant);
    if (wanted !== null && wanted !== tier) {
      await environment.admin.pinTier(wanted, `pnpm bench: ${slot.cell.variant} runs next`);
      tier = wanted;
    }
    const profiling = profiles !== null && !slot.warmup;
    if (profiling) await startProfiles(environment, wanted !== null);
    const before = cpuSnapshot(environment.pids);
    const result = await environment.loadgen.run(slot.cell, slot.durationMs);
    const cpuMs = cpuDelta(before, cpuSnapshot(environment.pids));
    if (profiling) await stopProfiles(environment, wanted !== null, slot, profiles);
    const { variant, concurrency, keys } = slot.cell;
    const rate = (result.attempts / result.elapsedMs) * 1000;
    log(
      `[${index + 1}/${schedule.length}] ${slot.warmup ? "warm-up" : `round ${slot.round}`} ` +
        `${variant} c=${concurrency} K=${keys}: ${formatRate(rate)} cycles/s, ` +
        `${result.errors} errors${result.firstError ? ` (${result.firstError})` : ""}`,
    );
    if (slot.warmup) continue;
    const key = cellKey(slot.cell);
    const rounds = measured.get(key) ?? [];
    rounds.push({ ...result, cpuMs });
    measured.set(key, rounds);
  }
  if (tier !== "redis") await environment.admin.pinTier("redis", "pnpm bench: rounds done");
  return plan.cells.map((cell) => summarizeCell(cell, measured.get(cellKey(cell)) ?? []));
}
