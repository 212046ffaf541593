import { createWriteStream, type WriteStream } from "node:fs";
import { monoNow } from "./clock.js";
import type { ChaosEvent, NemesisEvent, ObserverEvent, OrchestratorEvent } from "./events.js";

type Unstamped<T> = T extends unknown ? Omit<T, "mono" | "wall"> : never;
type Listener = (event: ChaosEvent) => void;

/**
 * `events.jsonl` of a run: every worker line as the worker wrote it, and the run's own
 * lines stamped here. Listeners see each event synchronously as it is appended, which is
 * how the nemesis pauses a worker within a millisecond of its `read` line.
 */
export class EventLog {
  private readonly out: WriteStream;
  private readonly listeners = new Set<Listener>();

  constructor(readonly path: string) {
    this.out = createWriteStream(path, { flags: "a" });
  }

  /** Stamps and appends one of the run's own events. */
  record(event: Unstamped<NemesisEvent | ObserverEvent | OrchestratorEvent>): ChaosEvent {
    const stamped = { ...event, mono: monoNow(), wall: Date.now() } as ChaosEvent;
    this.append(JSON.stringify(stamped), stamped);
    return stamped;
  }

  /** Appends a line a worker wrote; lines that are not events go to `other`. */
  ingest(line: string, other: (line: string) => void): void {
    let event: ChaosEvent;
    try {
      event = JSON.parse(line) as ChaosEvent;
    } catch {
      other(line);
      return;
    }
    if (typeof event !== "object" || event === null || typeof event.mono !== "number") {
      other(line);
      return;
    }
    this.append(line, event);
  }

  /** Calls `listener` for every later event; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Resolves with the first later event `match` accepts, or null after `timeoutMs` or when
   * `signal` aborts. `match` runs synchronously on the event, so it may act on it at once.
   */
  waitFor<T extends ChaosEvent>(
    match: (event: ChaosEvent) => event is T,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<T | null>;
  waitFor(
    match: (event: ChaosEvent) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<ChaosEvent | null>;
  waitFor(
    match: (event: ChaosEvent) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<ChaosEvent | null> {
    return new Promise((resolve) => {
      const finish = (event: ChaosEvent | null): void => {
        unsubscribe();
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolve(event);
      };
      const onAbort = (): void => finish(null);
      const unsubscribe = this.subscribe((event) => {
        if (match(event)) finish(event);
      });
      const timer = setTimeout(() => finish(null), timeoutMs);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Flushes and closes the file. */
  close(): Promise<void> {
    return new Promise((resolve) => this.out.end(resolve));
  }

  private append(line: string, event: ChaosEvent): void {
    this.out.write(`${line}\n`);
    for (const listener of this.listeners) listener(event);
  }
}
