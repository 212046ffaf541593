import type { ChaosEvent } from "../log/events.js";
import type { LedgerRow } from "../ledger/ledger-types.js";

/** One run of one worker process, in monotonic ms. */
interface WorkerLife {
  readonly worker: string;
  readonly inc: number;
  readonly start: number;
  readonly exit: number;
}

function workerLives(events: readonly ChaosEvent[]): WorkerLife[] {
  const exits = new Map<string, number>();
  for (const e of events) {
    if (e.src === "orchestrator" && e.ev === "process-exit" && e.role === "worker") {
      exits.set(`${e.id}#${e.inc ?? 0}`, e.mono);
    }
  }
  // Election candidates are not all granted (only the leader is): the leader account's
  // first write after the heal stands for them.
  return events.flatMap((e) =>
    e.src === "worker" && e.ev === "start" && e.role !== "leader"
      ? [
          {
            worker: e.worker,
            inc: e.inc,
            start: e.mono,
            exit: exits.get(`${e.worker}#${e.inc}`) ?? Infinity,
          },
        ]
      : [],
  );
}

/**
 * Time from `healMono` until the service is whole again: every mutex worker process alive
 * at the heal has been granted a lock, and every account (the elected leader's too) has an
 * accepted write. Null when
 * that never happened. The per-worker part catches clients cut off from one server (a
 * killed server's workers must reconnect); the per-account part catches a key left held
 * by a dead or paused holder (it comes back when the lease ends).
 */
export function recoveryMs(
  healMono: number,
  events: readonly ChaosEvent[],
  ledger: readonly LedgerRow[],
  accounts: readonly string[],
): number | null {
  let latest = healMono;
  for (const life of workerLives(events)) {
    if (life.start > healMono || life.exit <= healMono) continue;
    const grant = events.find(
      (e) =>
        e.src === "worker" &&
        e.ev === "granted" &&
        e.worker === life.worker &&
        e.inc === life.inc &&
        e.mono >= healMono,
    );
    if (!grant) return null;
    latest = Math.max(latest, grant.mono);
  }
  for (const account of accounts) {
    let first = Infinity;
    for (const row of ledger) {
      if (row.account === account && row.mono >= healMono && row.mono < first) first = row.mono;
    }
    if (first === Infinity) return null;
    latest = Math.max(latest, first);
  }
  return Math.round(latest - healMono);
}
