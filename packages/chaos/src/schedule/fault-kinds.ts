/**
 * Every fault the nemesis can inject, with what the schedule needs to know about it. The
 * numbers in comments are the items of issue 9's list.
 */
export const FAULT_KINDS = [
  "pause-holder", // 1: SIGSTOP a holder after its read, past its lease
  "failover-kill-master", // 2: sentinel failover by kill -9 of the master
  "failover-lost-writes", // 2: the master killed after writing what no replica got
  "redis-down", // 3: every Redis process down → tier mysql, back → redis
  "warden-db-down", // 4: Warden's MariaDB down while Redis is up
  "db-and-redis-down", // 4: both down: local for `allow`, fail-closed for `deny`
  "clock-jump-server", // 5: one server's wall clock stepped ±30 s and +300 s
  "redis-key-expiry", // 5: a Redis clock jump, simulated by PEXPIRE of a held lease to 1 ms
  "net-redis-delay", // 6: servers ↔ Redis slow, with jitter and retransmit-like spikes
  "net-redis-blackhole",
  "net-redis-reset",
  "net-redis-refuse",
  "net-db-delay", // 6: servers ↔ Warden's database
  "net-db-blackhole",
  "net-db-reset",
  "net-db-refuse",
  "server-kill", // 7: kill -9 one of the server instances mid-traffic, restart it later
  "kill-worker-holding", // 7: kill -9 a worker that holds a lock
  "self-pause-after-read", // 7: a worker stops itself right after its read (the sharpest case)
  "redis-cluster-failover", // cluster variant: a master serving the ledger's keys fails over
  "redis-cluster-reshard", // cluster variant: a held ledger key's slot moves to another master
  "replica-pause", // every Redis replica frozen: with waitReplicas, grants are undone
] as const;

/** One fault's name. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Whether `name` is a fault this nemesis knows. */
export function isFaultKind(name: string): name is FaultKind {
  return (FAULT_KINDS as readonly string[]).includes(name);
}

/**
 * Faults whose meaning depends on Redis being the tier when they start (a Redis fault on
 * an already degraded fleet proves little); before these the nemesis waits for tier
 * `redis` on every server. The others hold on any tier.
 */
const NEEDS_REDIS_TIER: ReadonlySet<FaultKind> = new Set([
  "failover-kill-master",
  "failover-lost-writes",
  "redis-cluster-failover",
  "redis-cluster-reshard",
  "redis-down",
  "warden-db-down",
  "db-and-redis-down",
  "redis-key-expiry",
  "replica-pause",
  "net-redis-delay",
  "net-redis-blackhole",
  "net-redis-reset",
  "net-redis-refuse",
  "net-db-delay",
  "net-db-blackhole",
  "net-db-reset",
  "net-db-refuse",
]);

/** Whether the nemesis must wait for tier `redis` before injecting `kind`. */
export function needsRedisTier(kind: FaultKind): boolean {
  return NEEDS_REDIS_TIER.has(kind);
}

/** The Redis topology the stack runs on: a sentinel group, or a 6-node Redis Cluster. */
export type RedisVariant = "sentinel" | "cluster";

/**
 * Faults that only make sense on a sentinel group: they act through the sentinels or
 * restart the whole group (all of Redis down). The cluster has its own failover.
 */
const SENTINEL_ONLY: ReadonlySet<FaultKind> = new Set([
  "failover-kill-master",
  "redis-down",
  "db-and-redis-down",
]);

/** Whether `kind` can run on `variant`. */
export function runsOn(kind: FaultKind, variant: RedisVariant): boolean {
  if (kind === "redis-cluster-failover" || kind === "redis-cluster-reshard") {
    return variant === "cluster";
  }
  return variant === "sentinel" || !SENTINEL_ONLY.has(kind);
}

/**
 * The quick run's faults: every numbered item of the issue once, with three of the eight
 * network impairments (one that slows Redis, one that cuts it, one that cuts the
 * database), so that it fits in three minutes on two cores.
 */
export const QUICK_FAULTS: readonly FaultKind[] = FAULT_KINDS.filter(
  (kind) =>
    runsOn(kind, "sentinel") &&
    (!kind.startsWith("net-") ||
      kind === "net-redis-delay" ||
      kind === "net-redis-reset" ||
      kind === "net-db-blackhole"),
);

/**
 * The full run's faults: everything, and the faults whose interleaving varies most from
 * run to run a second time.
 */
export const FULL_FAULTS: readonly FaultKind[] = [
  ...FAULT_KINDS.filter((kind) => runsOn(kind, "sentinel")),
  "pause-holder",
  "failover-kill-master",
  "redis-key-expiry",
  "kill-worker-holding",
  "self-pause-after-read",
  "server-kill",
];

/**
 * The cluster variant's quick run: the cluster failover twice (once by kill -9 of the
 * master, once by `CLUSTER FAILOVER` on its replica, as the seed decides), a server
 * instance killed, the process faults whose late write must come back stale, a lease
 * expired early on its master, the servers' path to the cluster reset, every replica
 * frozen, a master killed after writing what its replica never got, and a held key's slot
 * resharded to another master.
 */
export const CLUSTER_QUICK_FAULTS: readonly FaultKind[] = [
  "redis-cluster-failover",
  "redis-cluster-failover",
  "redis-cluster-reshard",
  "server-kill",
  "pause-holder",
  "redis-key-expiry",
  "kill-worker-holding",
  "self-pause-after-read",
  "net-redis-reset",
  "replica-pause",
  "failover-lost-writes",
];

/** The cluster variant's full run: every fault that runs on a cluster, the failover three times. */
export const CLUSTER_FULL_FAULTS: readonly FaultKind[] = [
  ...FAULT_KINDS.filter((kind) => runsOn(kind, "cluster")),
  "redis-cluster-failover",
  "redis-cluster-failover",
  "server-kill",
  "pause-holder",
  "self-pause-after-read",
];

/** The faults of a run of `mode` on `variant`. */
export function faultsOf(mode: "quick" | "full", variant: RedisVariant): readonly FaultKind[] {
  if (variant === "cluster") return mode === "quick" ? CLUSTER_QUICK_FAULTS : CLUSTER_FULL_FAULTS;
  return mode === "quick" ? QUICK_FAULTS : FULL_FAULTS;
}
