/** Evidence that store faults hit: failover, outages, clock steps. */
import type { ObserverEvent, WorkerEvent } from "../log/events.js";
import { observation } from "./fault-windows.js";
import {
  type Hit,
  type Scope,
  after,
  during,
  epochOf,
  grantsOnTier,
  inWindow,
  observedTier,
  soonAfterHeal,
  result,
} from "./hit-scope.js";

/** Grants after the new master carry a higher fence epoch than any before the fault. */
export function failover(s: Scope): Hit {
  const epochs = (when: (e: WorkerEvent) => boolean): number =>
    Math.max(
      -1,
      ...s.workers
        .filter((e) => e.ev === "granted" && e.fence && when(e))
        .map((e) => epochOf(e.fence!)),
    );
  const before = epochs((e) => e.mono < s.window.start);
  const afterHeal = epochs((e) => after(s, e.mono));
  return result(
    afterHeal > before,
    `fence epoch before ${before}, after the new master ${afterHeal}`,
  );
}

/** What the redis-cluster-reshard fault did: the slot and the held account it moved. */
interface ReshardObservation {
  readonly moved: boolean;
  readonly slot?: number;
  readonly account?: string;
  readonly keys?: number;
}

/**
 * A held account's slot moved to another master, which binds a new epoch for it: the
 * account's grants after the move are fenced in an epoch above every one of its grants before.
 */
export function reshard(s: Scope): Hit {
  const seen = observation(s.window, "reshard") as ReshardObservation | undefined;
  if (!seen?.moved) return result(false, "no held ledger key found to move");
  const epochs = (when: (e: WorkerEvent) => boolean): number[] =>
    s.workers
      .filter((e) => e.ev === "granted" && e.fence && e.account === seen.account && when(e))
      .map((e) => epochOf(e.fence!));
  const before = Math.max(-1, ...epochs((e) => e.mono < s.window.start));
  const afterMove = epochs((e) => after(s, e.mono));
  return result(
    afterMove.length > 0 && Math.min(...afterMove) > before,
    `slot ${seen.slot} (${seen.account}, ${seen.keys} keys) moved; the account's epoch before ${before}, ` +
      `after the move ${afterMove.length > 0 ? Math.min(...afterMove) : "none"} (${afterMove.length} grants)`,
  );
}

/** The fleet granted on MySQL while Redis was down and came back to Redis. */
export function redisDown(s: Scope): Hit {
  const onMysql = grantsOnTier(s, "mysql", during);
  const back =
    observedTier(s, "redis", soonAfterHeal) || grantsOnTier(s, "redis", soonAfterHeal) > 0;
  return result(
    onMysql > 0 && back,
    `${onMysql} grants on mysql while down; back on redis: ${back}`,
  );
}

/**
 * The servers noticed the database was gone: their audit went to the local spool. Whether
 * Redis kept granting meanwhile is reported, not required: within 60 s of a return to
 * Redis every grant first checks MySQL for a live lease, and fails closed without it.
 */
export function wardenDbDown(s: Scope): Hit {
  const onRedis = grantsOnTier(s, "redis", during);
  const refused = s.workers.filter(
    (e) => e.ev === "acquire-failed" && e.error === "LockUnavailableError" && during(s, e.mono),
  ).length;
  const spooled = (when: (o: ObserverEvent) => boolean): number =>
    Math.max(0, ...s.observers.filter((o) => o.up && when(o)).map((o) => o.spooled ?? 0));
  const grew = spooled((o) => inWindow(s, o.mono)) > spooled((o) => o.mono < s.window.start);
  return result(
    grew,
    `audit spooled: ${grew}; ${onRedis} grants on redis and ${refused} acquires refused while the database was down`,
  );
}

/** Ledger acquires failed closed, and the allow resource got a local lock the guard refused. */
export function bothDown(s: Scope): Hit {
  const refused = s.workers.filter(
    (e) => e.ev === "acquire-failed" && e.error === "LockUnavailableError" && during(s, e.mono),
  ).length;
  const probe = observation(s.window, "localProbe") as
    | { tier?: string; fence?: unknown; guard?: string }
    | undefined;
  const local = probe?.tier === "local" && probe.fence === null && probe.guard === "refused";
  return result(
    refused > 0 && local,
    `${refused} ledger acquires failed closed; allow resource: ${JSON.stringify(probe ?? null)}`,
  );
}

/** Each of the three steps showed in the server's Date header (±2.5 s). */
export function clockJump(s: Scope): Hit {
  const steps = s.window.observations
    .map((o) => o.clockStep as { targetMs: number; measuredMs: number | null } | undefined)
    .filter((step) => step !== undefined);
  const ok =
    steps.length === 3 &&
    steps.every((st) => st.measuredMs !== null && Math.abs(st.measuredMs - st.targetMs) <= 2_500);
  return result(
    ok,
    steps
      .map(
        (st) =>
          `${st.targetMs / 1000} s → measured ${st.measuredMs === null ? "?" : Math.round(st.measuredMs / 1000)} s`,
      )
      .join(", "),
  );
}

/** What the replica-pause fault saw while every replica was frozen. */
interface ReplicaPauseObservation {
  readonly paused: number;
  readonly waitReplicas: number;
  readonly probe: string;
  readonly undone: number;
}

/** Grants the workers got on Redis this long after the freeze are ones no replica could have acknowledged. */
const FROZEN_AFTER_MS = 500;

/**
 * Every replica was frozen. With `waitReplicas` above 0: the probe was refused, Warden undid
 * grants meanwhile, and no worker was granted on Redis while no replica could acknowledge
 * (from half a second after the freeze until the thaw). Without it: Redis kept granting.
 */
export function replicaPause(s: Scope): Hit {
  const seen = observation(s.window, "replicaPause") as ReplicaPauseObservation | undefined;
  if (!seen) return result(false, "no observation: the fault did not get as far as the probe");
  const frozen = (_: Scope, mono: number) =>
    mono >= s.window.start + FROZEN_AFTER_MS && mono <= (s.window.heal ?? s.window.end);
  const onRedis = grantsOnTier(s, "redis", frozen);
  const evidence = `${seen.paused} replicas frozen; waitReplicas ${seen.waitReplicas}: probe ${seen.probe}, ${seen.undone} grants undone, ${onRedis} worker grants on redis while frozen`;
  const hit =
    seen.paused > 0 &&
    (seen.waitReplicas > 0
      ? seen.probe === "LockUnavailableError" && seen.undone > 0 && onRedis === 0
      : seen.probe === "granted on redis" && onRedis > 0);
  return result(hit, evidence);
}

/** What the failover-lost-writes fault saw: the replication offsets and the probe's two tries. */
interface LostWritesObservation {
  readonly newMaster: number | null;
  readonly waitReplicas: number;
  readonly offsetAtCut: number;
  readonly offsetAtKill: number;
  readonly probe: string;
  readonly probeFence: string | null;
  readonly again: string;
  readonly againFence: string | null;
}

/**
 * A replica was promoted after the master had written what no replica got. Without
 * `waitReplicas`, the probe's key, granted before the kill, was granted again on the new
 * master with a greater fence: the first grant was lost, and fences are what set the two
 * holders apart. With it, the probe's first try was refused (nothing it could lose), and the
 * key was granted once Redis was back.
 */
export function lostWrites(s: Scope): Hit {
  const seen = observation(s.window, "lostWrites") as LostWritesObservation | undefined;
  if (!seen) return result(false, "no observation: the fault did not get as far as the promotion");
  const wrote = seen.offsetAtKill - seen.offsetAtCut;
  const evidence =
    `new master ${seen.newMaster ?? "none"}; ${wrote} bytes written past the replicas; ` +
    `waitReplicas ${seen.waitReplicas}: probe ${seen.probe} (fence ${seen.probeFence ?? "none"}), ` +
    `then ${seen.again} (fence ${seen.againFence ?? "none"})`;
  const reissued =
    seen.probeFence !== null &&
    seen.againFence !== null &&
    BigInt(seen.againFence) > BigInt(seen.probeFence);
  const hit =
    seen.newMaster !== null &&
    wrote > 0 &&
    seen.again === "granted again" &&
    (seen.waitReplicas > 0
      ? seen.probe === "LockUnavailableError"
      : seen.probe === "granted on redis" && reissued);
  return result(hit, evidence);
}
