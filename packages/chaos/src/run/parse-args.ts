import { parseArgs } from "node:util";
import type { GuardMode } from "../checker/run-facts.js";
import type { RunMode } from "../schedule/build-schedule.js";
import { isFaultKind, runsOn, type FaultKind, type RedisVariant } from "../schedule/fault-kinds.js";

/** The command line of `pnpm chaos`. */
export interface ChaosArgs {
  readonly mode: RunMode;
  readonly seed: number;
  readonly guard: GuardMode;
  /** The Redis topology under the servers. */
  readonly redis: RedisVariant;
  readonly out: string | undefined;
  readonly only: readonly FaultKind[] | undefined;
  /** Re-judge an earlier run directory instead of running. */
  readonly check: string | undefined;
  /**
   * The resources' `waitReplicas`: every Redis grant waits for this many replicas and is
   * undone when fewer acknowledge it (0: no wait).
   */
  readonly waitReplicas: number;
}

/** Replicas per master: two in the sentinel group, one in the cluster. */
const REPLICAS: Readonly<Record<RedisVariant, number>> = { sentinel: 2, cluster: 1 };

export const USAGE = `usage: pnpm chaos [--quick] [--redis sentinel|cluster] [--seed N] [--out FILE]
                  [--guard=rmw|fence-only] [--only fault,fault…] [--wait-replicas N]
                  [--check RUN_DIR]
  --quick        every numbered fault once, shorter outages (< 3 min); default: full (< 10 min)
  --redis        sentinel (default): a sentinel group; cluster: a 6-node Redis Cluster
                 with the redis-cluster-failover fault instead of the sentinel-only ones
  --seed N       the nemesis schedule (same seed, same schedule); default: from the clock
  --out FILE     also write the JSON report there
  --guard        rmw (default): claim before read; fence-only: the negative control,
                 which must fail the lost-update check
  --only         run only these faults (debugging)
  --wait-replicas N  register the resources with waitReplicas N (default 0): each Redis
                 grant waits for N replicas and is undone with fewer (at most 2 on
                 sentinel, 1 on cluster)
  --check DIR    judge an earlier run from its events.jsonl and final.json`;

/** Parses `argv`; throws a message (print it with {@link USAGE}) on anything unknown. */
export function parseChaosArgs(argv: readonly string[]): ChaosArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: "boolean", default: false },
      seed: { type: "string" },
      out: { type: "string" },
      guard: { type: "string", default: "rmw" },
      redis: { type: "string", default: "sentinel" },
      only: { type: "string" },
      check: { type: "string" },
      "wait-replicas": { type: "string", default: "0" },
      help: { type: "boolean", default: false },
    },
    allowPositionals: false,
  });
  if (values.help) throw new Error("help");
  const seed = values.seed === undefined ? Date.now() % 1_000_000 : Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0)
    throw new Error(`--seed must be a non-negative integer, not ${values.seed}`);
  if (values.guard !== "rmw" && values.guard !== "fence-only")
    throw new Error(`--guard must be rmw or fence-only, not ${values.guard}`);
  if (values.redis !== "sentinel" && values.redis !== "cluster")
    throw new Error(`--redis must be sentinel or cluster, not ${values.redis}`);
  const redis: RedisVariant = values.redis;
  const waitReplicas = /^\d+$/.test(values["wait-replicas"]) ? Number(values["wait-replicas"]) : -1;
  if (waitReplicas < 0 || waitReplicas > REPLICAS[redis])
    throw new Error(
      `--wait-replicas must be a whole number from 0 to ${REPLICAS[redis]} on --redis ${redis} (its replicas per master), not ${values["wait-replicas"]}`,
    );
  const only = values.only?.split(",").map((name) => name.trim());
  const unknown = only?.filter((name) => !isFaultKind(name));
  if (unknown && unknown.length > 0) throw new Error(`unknown faults: ${unknown.join(", ")}`);
  const elsewhere = (only as FaultKind[] | undefined)?.filter((kind) => !runsOn(kind, redis));
  if (elsewhere && elsewhere.length > 0)
    throw new Error(`faults that do not run on --redis ${redis}: ${elsewhere.join(", ")}`);
  return {
    mode: values.quick ? "quick" : "full",
    seed,
    guard: values.guard,
    redis,
    out: values.out,
    only: only as FaultKind[] | undefined,
    check: values.check,
    waitReplicas,
  };
}
