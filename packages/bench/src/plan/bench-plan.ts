import { instancesOf, VARIANTS, type VariantName } from "./variants.js";

/** One cell of the result table: a variant at a concurrency over a key space. */
export interface CellSpec {
  readonly variant: VariantName;
  /** Lock cycles in flight at once. */
  readonly concurrency: number;
  /** Size of the key space the cycles pick from uniformly (K). */
  readonly keys: number;
}

/** Sizes of the memory measurements. */
export interface MemoryPlan {
  /** Locks held through core-redis (and bare keys set) to measure Redis bytes per lock. */
  readonly redisLocks: number;
  /** Locks held through the SDK while the server's RSS is read. */
  readonly serverLocks: number;
  /** Blocking acquires queued on the server at the same time. */
  readonly waiters: number;
  /** SDK clients (WebSocket connections) holding the locks and queueing the waiters. */
  readonly waiterClients: number;
}

/** Everything that decides how long the bench runs and what it measures. */
export interface BenchPlan {
  readonly mode: "full" | "quick";
  readonly cells: readonly CellSpec[];
  /** Measured rounds; every cell runs once per round. */
  readonly rounds: number;
  /** Length of one measured slot, in ms. */
  readonly roundMs: number;
  /** Length of the discarded warm-up slot each cell gets before round 1, in ms (0: none). */
  readonly warmupMs: number;
  /** Lease of every lock a cycle takes, in ms: long enough that no lease lapses mid-cycle. */
  readonly leaseMs: number;
  readonly memory: MemoryPlan;
}

/** Cycles in flight in the full run (issue 8). */
export const FULL_CONCURRENCIES = [1, 16, 64] as const;
/** Key-space sizes of the full run: low contention, then high (issue 8). */
export const FULL_KEY_COUNTS = [10_000, 10] as const;

const LEASE_MS = 10_000;

function product(
  variants: readonly VariantName[],
  concurrencies: readonly number[],
  keyCounts: readonly number[],
): CellSpec[] {
  return keyCounts.flatMap((keys) =>
    concurrencies.flatMap((concurrency) =>
      variants.map((variant) => ({ variant, concurrency, keys })),
    ),
  );
}

/**
 * Variants --quick leaves out, to stay within its budget: the 3-client pair (a fleet needs
 * two more server processes, ~10 s of start-up alone) and core-redis-fair (sdk-fair already
 * drives the fair path through the server).
 */
export const NOT_IN_QUICK: readonly VariantName[] = [
  "core-redis-fair",
  "sdk-3clients",
  "sdk-3instances",
];

/**
 * The full run: every variant × 3 concurrencies × 2 key spaces, 3 rounds of 3 s each after a
 * 1 s warm-up: 84 cells, ~15 minutes with the memory part on a 2-core box.
 */
export function fullPlan(): BenchPlan {
  return {
    mode: "full",
    cells: product(VARIANTS, FULL_CONCURRENCIES, FULL_KEY_COUNTS),
    rounds: 3,
    roundMs: 3_000,
    warmupMs: 1_000,
    leaseMs: LEASE_MS,
    memory: { redisLocks: 100_000, serverLocks: 100_000, waiters: 1_000, waiterClients: 100 },
  };
}

/**
 * The CI subset (≤ 2 minutes): every variant but {@link NOT_IN_QUICK} once at concurrency
 * 16 over 10 000 keys, plus the headline pair (raw-ioredis, sdk), sdk-semaphore and
 * sdk-read-lock (their ratios to sdk, decision 0046) at 64, two short rounds, a tenth of the
 * memory sample.
 */
export function quickPlan(): BenchPlan {
  return {
    mode: "quick",
    cells: [
      ...product(
        VARIANTS.filter((variant) => !NOT_IN_QUICK.includes(variant)),
        [16],
        [10_000],
      ),
      ...product(["raw-ioredis", "sdk", "sdk-semaphore", "sdk-read-lock"], [64], [10_000]),
    ],
    rounds: 2,
    roundMs: 1_500,
    warmupMs: 500,
    leaseMs: LEASE_MS,
    memory: { redisLocks: 10_000, serverLocks: 10_000, waiters: 100, waiterClients: 10 },
  };
}

/** The plan for the command line: full or quick, optionally only some variants. */
export function planFor(options: {
  readonly quick: boolean;
  readonly variants: readonly VariantName[] | null;
}): BenchPlan {
  const plan = options.quick ? quickPlan() : fullPlan();
  const only = options.variants;
  if (only === null) return plan;
  return { ...plan, cells: plan.cells.filter((cell) => only.includes(cell.variant)) };
}

/** Server instances a plan needs: the most any of its variants spreads its clients over. */
export function serverInstancesOf(plan: Pick<BenchPlan, "cells">): number {
  return Math.max(1, ...plan.cells.map((cell) => instancesOf(cell.variant)));
}
