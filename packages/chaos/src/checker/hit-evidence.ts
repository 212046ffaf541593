import type { ChaosEvent, ObserverEvent, WorkerEvent } from "../log/events.js";
import type { LedgerRow } from "../ledger/ledger-types.js";
import { observation, type FaultWindow } from "./fault-windows.js";

/** Whether a fault demonstrably took effect, and the evidence either way. */
export interface Hit {
  readonly hit: boolean;
  readonly evidence: string;
}

/** A held lock the nemesis acted on (paused or killed its worker). */
interface Victim {
  readonly worker: string;
  readonly lockId: string;
  readonly account: string;
}

interface Scope {
  readonly window: FaultWindow;
  readonly workers: readonly WorkerEvent[];
  readonly observers: readonly ObserverEvent[];
  readonly events: readonly ChaosEvent[];
  readonly ledger: readonly LedgerRow[];
}

const FENCE_COUNTER_SPAN = 8_589_934_592n;

function epochOf(fence: string): number {
  return Number(BigInt(fence) / FENCE_COUNTER_SPAN);
}

function during(s: Scope, mono: number): boolean {
  return mono >= s.window.start && mono <= (s.window.heal ?? s.window.end);
}

function after(s: Scope, mono: number): boolean {
  return s.window.heal !== null && mono >= s.window.heal && mono < s.window.end;
}

function inWindow(s: Scope, mono: number): boolean {
  return mono >= s.window.start && mono < s.window.end;
}

function result(hit: boolean, evidence: string): Hit {
  return { hit, evidence };
}

/** Its late write (or claim) came back stale. */
function staleAfterResume(s: Scope): Hit {
  const victim = observation(s.window, "paused") as Victim | undefined;
  if (!victim) return result(false, "no holder was paused");
  const late = s.workers.find(
    (e) =>
      (e.ev === "write" || e.ev === "claimed") &&
      e.lockId === victim.lockId &&
      e.mono >= s.window.start,
  );
  const outcome = late ? `${late.ev} ${late.outcome}` : "no write";
  return result(
    late?.outcome === "stale",
    `${victim.worker} (lock ${victim.lockId}) after resume: ${outcome}`,
  );
}

function grantsOnTier(s: Scope, tier: string, when: (s: Scope, mono: number) => boolean): number {
  return s.workers.filter((e) => e.ev === "granted" && e.tier === tier && when(s, e.mono)).length;
}

function observedTier(s: Scope, tier: string, when: (s: Scope, mono: number) => boolean): boolean {
  return s.observers.some((o) => o.up && o.tier === tier && when(s, o.mono));
}

function degraded(s: Scope): Hit {
  const grants = grantsOnTier(s, "mysql", inWindow);
  const seen = observedTier(s, "mysql", inWindow);
  return result(grants > 0 || seen, `${grants} grants on tier mysql; observer saw mysql: ${seen}`);
}

function proxyCounted(s: Scope, counter: string): { count: number; text: string } {
  const stats = observation(s.window, "proxy") as Record<string, number> | undefined;
  const count = stats?.[counter] ?? 0;
  return { count, text: `proxy ${counter}: ${count}` };
}

function failover(s: Scope): Hit {
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

/** Tier recovery waits out a 10 s hold-down, possibly past this window: look 60 s on. */
const RETURN_HORIZON_MS = 60_000;

function soonAfterHeal(s: Scope, mono: number): boolean {
  return (
    s.window.heal !== null && mono >= s.window.heal && mono < s.window.heal + RETURN_HORIZON_MS
  );
}

function redisDown(s: Scope): Hit {
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
function wardenDbDown(s: Scope): Hit {
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

function bothDown(s: Scope): Hit {
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

function clockJump(s: Scope): Hit {
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

function keyExpiry(s: Scope): Hit {
  const stale = staleAfterResume(s);
  const expired = observation(s.window, "pexpire") === 1;
  return result(stale.hit && expired, `PEXPIRE 1 ms applied: ${expired}; ${stale.evidence}`);
}

function netDelay(s: Scope): Hit {
  const delayed = proxyCounted(s, "delayedChunks");
  const rtt = observation(s.window, "probeRttMs") as number | undefined;
  const latency = observation(s.window, "latencyMs") as number | undefined;
  const slow = rtt !== undefined && latency !== undefined && rtt >= latency;
  return result(
    delayed.count > 0 && slow,
    `${delayed.text}; probe round trip ${rtt ?? "?"} ms for ${latency ?? "?"} ms latency`,
  );
}

function netRedisCut(s: Scope, counter: string): Hit {
  const counted = proxyCounted(s, counter);
  const tier = degraded(s);
  return result(counted.count > 0 && tier.hit, `${counted.text}; ${tier.evidence}`);
}

function netDbCut(s: Scope, counter: string): Hit {
  const counted = proxyCounted(s, counter);
  const writes = s.ledger.filter((row) => during(s, row.mono)).length;
  return result(
    counted.count > 0 && writes > 0,
    `${counted.text}; ${writes} ledger writes meanwhile`,
  );
}

function killServer(s: Scope): Hit {
  const id = observation(s.window, "killedServer") as string | undefined;
  const died = s.events.some(
    (e) =>
      e.src === "orchestrator" &&
      e.ev === "process-exit" &&
      e.role === "server" &&
      e.id === id &&
      e.signal === "SIGKILL" &&
      inWindow(s, e.mono),
  );
  const failed = s.workers.filter((e) => e.ev === "acquire-failed" && during(s, e.mono)).length;
  return result(died, `server ${id ?? "?"} killed: ${died}; ${failed} acquires failed meanwhile`);
}

function killWorker(s: Scope): Hit {
  const victim = observation(s.window, "killed") as Victim | undefined;
  if (!victim) return result(false, "no holder was killed");
  const taken = s.workers.find(
    (e) =>
      e.ev === "granted" &&
      e.account === victim.account &&
      e.worker !== victim.worker &&
      e.mono >= s.window.start,
  );
  const waitedMs = taken ? Math.round(taken.mono - s.window.start) : null;
  return result(
    taken !== undefined,
    `${victim.account} held by dead ${victim.worker} was granted again after ${waitedMs ?? "—"} ms`,
  );
}

/** The evidence that fault `window` took effect, judged from the log and the ledger only. */
export function hitEvidence(
  window: FaultWindow,
  events: readonly ChaosEvent[],
  ledger: readonly LedgerRow[],
): Hit {
  const s: Scope = {
    window,
    events,
    ledger,
    workers: events.filter((e): e is WorkerEvent => e.src === "worker"),
    observers: events.filter((e): e is ObserverEvent => e.src === "observer"),
  };
  switch (window.kind) {
    case "pause-holder":
    case "self-pause-after-read":
      return staleAfterResume(s);
    case "failover-kill-master":
      return failover(s);
    case "redis-down":
      return redisDown(s);
    case "warden-db-down":
      return wardenDbDown(s);
    case "db-and-redis-down":
      return bothDown(s);
    case "clock-jump-server":
      return clockJump(s);
    case "redis-key-expiry":
      return keyExpiry(s);
    case "net-redis-delay":
    case "net-db-delay":
      return netDelay(s);
    case "net-redis-blackhole":
      return netRedisCut(s, "stalledConnections");
    case "net-redis-reset":
      return netRedisCut(s, "resets");
    case "net-redis-refuse":
      return netRedisCut(s, "resets");
    case "net-db-blackhole":
      return netDbCut(s, "stalledConnections");
    case "net-db-reset":
      return netDbCut(s, "resets");
    case "net-db-refuse":
      return netDbCut(s, "resets");
    case "kill-server":
      return killServer(s);
    case "kill-worker-holding":
      return killWorker(s);
    default:
      return result(false, `unknown fault kind ${window.kind}`);
  }
}
