import { faultsOf, needsRedisTier, type FaultKind, type RedisVariant } from "./fault-kinds.js";
import { createRng, type Rng } from "./rng.js";

/** `quick` (CI, under 3 minutes) or `full` (every fault, under 10 minutes). */
export type RunMode = "quick" | "full";

/** Parameters of one fault: durations in ms, indexes of workers and servers. */
export type FaultParams = Readonly<Record<string, number>>;

/** One fault of the schedule. */
export interface FaultStep {
  /** Position in the schedule, from 0. */
  readonly index: number;
  readonly kind: FaultKind;
  /** `kind`, plus `#2` for its second occurrence: the name the report uses. */
  readonly name: string;
  readonly params: FaultParams;
  /** Healthy time after the fault has healed (and the fleet is back) before the next one, in ms. */
  readonly gapMs: number;
}

/** What a seed decides: the fault order, every parameter, and which server runs under libfaketime. */
export interface Schedule {
  readonly seed: number;
  readonly mode: RunMode;
  /** The Redis topology the run is on. */
  readonly redis: RedisVariant;
  /** Index (0 to {@link SERVER_COUNT} − 1) of the server started under libfaketime. */
  readonly fakedServer: number;
  /** Healthy traffic before the first fault, in ms. */
  readonly warmupMs: number;
  readonly steps: readonly FaultStep[];
}

/** Number of worker processes; their indexes are what `worker` parameters choose from. */
export const WORKER_COUNT = 8;

/** Number of server instances; their indexes are what `server` parameters choose from. */
export const SERVER_COUNT = 3;

// Outages last 10 s as the issue asks; the quick run shortens the ones whose recovery
// then waits for the 10 s Redis hold-down as well, to stay under three minutes.
// A killed server instance stays down for serverDownMs: its workers get no answer meanwhile
// while the other instances keep serving theirs.
const DURATIONS = {
  quick: {
    outageMs: 6_000,
    impairMs: [3_500, 4_500],
    clockHoldMs: 2_500,
    gapMs: [800, 1_500],
    serverDownMs: [500, 2_000],
  },
  full: {
    outageMs: 10_000,
    impairMs: [5_000, 8_000],
    clockHoldMs: 5_000,
    gapMs: [2_500, 5_000],
    serverDownMs: [1_000, 4_000],
  },
} as const;

function paramsOf(kind: FaultKind, mode: RunMode, rng: Rng): FaultParams {
  const d = DURATIONS[mode];
  const worker = rng.int(0, WORKER_COUNT - 1);
  switch (kind) {
    case "pause-holder":
      return { worker, beyondLeaseMs: rng.int(1_000, 2_500) };
    case "failover-kill-master":
      return { restartAfterMs: rng.int(500, 1_500) };
    case "failover-lost-writes":
      return { writeMs: rng.int(1_000, 2_000), restartAfterMs: rng.int(500, 1_500) };
    case "redis-down":
    case "warden-db-down":
    case "db-and-redis-down":
    case "replica-pause":
      return { downMs: d.outageMs };
    case "clock-jump-server": {
      // ±30 s in a seeded order, then +300 s; each held long enough to be observed.
      const minusFirst = rng.int(0, 1);
      return {
        firstOffsetMs: minusFirst ? -30_000 : 30_000,
        secondOffsetMs: minusFirst ? 30_000 : -30_000,
        thirdOffsetMs: 300_000,
        holdMs: d.clockHoldMs,
      };
    }
    case "redis-key-expiry":
    case "kill-worker-holding":
    case "self-pause-after-read":
      return { worker };
    case "net-redis-delay":
    case "net-db-delay":
      return {
        durationMs: rng.int(d.impairMs[0], d.impairMs[1]),
        latencyMs: rng.int(20, 80),
        jitterMs: rng.int(10, 60),
        // TCP hides loss as retransmission stalls: a few chunks wait this much longer.
        spikeMs: rng.int(150, 400),
        spikePercent: rng.int(2, 6),
      };
    case "net-redis-blackhole":
    case "net-redis-reset":
    case "net-redis-refuse":
    case "net-db-blackhole":
    case "net-db-reset":
    case "net-db-refuse":
      return { durationMs: rng.int(d.impairMs[0], d.impairMs[1]) };
    case "server-kill":
      return {
        server: rng.int(0, SERVER_COUNT - 1),
        downMs: rng.int(d.serverDownMs[0], d.serverDownMs[1]),
      };
    case "redis-cluster-reshard":
      // pick chooses the target among the other masters; stepMs is the pause between two
      // keys' MIGRATE, while the slot's keys are split between the two nodes.
      return { pick: rng.int(0, 99), stepMs: rng.int(50, 250) };
    case "redis-cluster-failover":
      // byCommand 1: CLUSTER FAILOVER on the replica; 0: kill -9 of the master, restarted
      // after restartAfterMs. pick chooses among the masters serving the ledger's keys.
      return {
        byCommand: rng.int(0, 1),
        restartAfterMs: rng.int(500, 1_500),
        pick: rng.int(0, 99),
      };
  }
}

/** Faults on the path to Warden's database, which the schedule puts first (see {@link order}). */
function onDatabasePath(kind: FaultKind): boolean {
  return kind === "warden-db-down" || kind.startsWith("net-db-");
}

/**
 * Orders the faults: a seeded shuffle, then each fault that may move the tier off Redis is
 * followed, where possible, by one that does not need Redis as the tier, so that the
 * 10 s hold-down before the return to Redis is spent on another fault rather than idle.
 * Faults on the database path go first: for 60 s after any return to Redis the servers
 * check MySQL before every Redis grant and fail closed without it, which would turn "the
 * database is down while Redis is up" into "nothing is granted" (reported separately).
 */
function order(kinds: readonly FaultKind[], rng: Rng): FaultKind[] {
  const database = rng.shuffle(kinds.filter(onDatabasePath));
  const rest = kinds.filter((kind) => !onDatabasePath(kind));
  const tierBound = rng.shuffle(rest.filter(needsRedisTier));
  const anyTier = rng.shuffle(rest.filter((kind) => !needsRedisTier(kind)));
  const ordered: FaultKind[] = [...database];
  for (const kind of tierBound) {
    ordered.push(kind);
    const next = anyTier.shift();
    if (next) ordered.push(next);
  }
  return [...ordered, ...anyTier];
}

/**
 * The nemesis schedule for `seed`: pure, so the same seed and mode always give the same
 * schedule (the interleavings of real processes still differ from run to run). `only`
 * restricts it to some fault kinds, in the given multiplicity order (tests, debugging).
 */
export function buildSchedule(
  seed: number,
  mode: RunMode,
  only?: readonly FaultKind[],
  redis: RedisVariant = "sentinel",
): Schedule {
  const rng = createRng(seed);
  const fakedServer = rng.int(0, SERVER_COUNT - 1);
  const kinds = only ?? faultsOf(mode, redis);
  const seen = new Map<FaultKind, number>();
  const d = DURATIONS[mode];
  const steps = order(kinds, rng).map((kind, index): FaultStep => {
    const occurrence = (seen.get(kind) ?? 0) + 1;
    seen.set(kind, occurrence);
    return {
      index,
      kind,
      name: occurrence === 1 ? kind : `${kind}#${occurrence}`,
      params: paramsOf(kind, mode, rng),
      gapMs: rng.int(d.gapMs[0], d.gapMs[1]),
    };
  });
  return { seed, mode, redis, fakedServer, warmupMs: mode === "quick" ? 3_000 : 6_000, steps };
}
