/** Evidence that process faults hit: pauses, clock-expired leases, kills. */
import { observation } from "./fault-windows.js";
import { type Hit, type Scope, during, inWindow, result } from "./hit-scope.js";

/** A held lock the nemesis acted on (paused or killed its worker). */
interface Victim {
  readonly worker: string;
  readonly lockId: string;
  readonly account: string;
}

/** Its late write (or claim) came back stale. */
export function staleAfterResume(s: Scope): Hit {
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

/** The lease key got PEXPIRE 1 ms and the holder's late write came back stale. */
export function keyExpiry(s: Scope): Hit {
  const stale = staleAfterResume(s);
  const expired = observation(s.window, "pexpire") === 1;
  return result(stale.hit && expired, `PEXPIRE 1 ms applied: ${expired}; ${stale.evidence}`);
}

/**
 * The server instance died of SIGKILL within the window and, with several instances, the
 * workers of the others were granted while it was down (worker `w<i>` talks to instance
 * `i mod serverInstances`).
 */
export function killServer(s: Scope, serverInstances: number): Hit {
  const id = observation(s.window, "killedServer") as string | undefined;
  const index = observation(s.window, "killedServerIndex") as number | undefined;
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
  const onOthers = s.workers.filter(
    (e) =>
      e.ev === "granted" &&
      during(s, e.mono) &&
      Number(e.worker.slice(1)) % serverInstances !== index,
  ).length;
  const othersServed = serverInstances < 2 || onOthers > 0;
  return result(
    died && othersServed,
    `server ${id ?? "?"} of ${serverInstances} killed: ${died}; ${onOthers} grants through the other instances and ${failed} failed acquires while it was down`,
  );
}

/** The dead holder's account was granted to another worker. */
export function killWorker(s: Scope): Hit {
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
