import type { EventLog } from "../log/event-log.js";

/**
 * The latest grant per worker incarnation and the latest committed write per account,
 * kept live from the log, so the nemesis can tell when the service is whole again.
 */
export class Activity {
  private readonly lastGrant = new Map<string, number>();
  private readonly lastWrite = new Map<string, number>();
  private readonly unsubscribe: () => void;

  constructor(events: EventLog) {
    this.unsubscribe = events.subscribe((e) => {
      if (e.src !== "worker") return;
      if (e.ev === "granted") this.lastGrant.set(`${e.worker}#${e.inc}`, e.mono);
      if (e.ev === "write" && e.outcome === "applied" && e.account)
        this.lastWrite.set(e.account, e.mono);
    });
  }

  /** Monotonic ms of the last grant of `worker` in incarnation `inc`, or -Infinity. */
  grantedAt(worker: string, inc: number): number {
    return this.lastGrant.get(`${worker}#${inc}`) ?? -Infinity;
  }

  /** Monotonic ms of the last committed write to `account`, or -Infinity. */
  writtenAt(account: string): number {
    return this.lastWrite.get(account) ?? -Infinity;
  }

  stop(): void {
    this.unsubscribe();
  }
}
