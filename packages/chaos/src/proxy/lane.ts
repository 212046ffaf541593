import type { Socket } from "node:net";
import type { ProxyMode, ProxyStats } from "./proxy-mode.js";

/** A chunk, or `null` for the source's end of stream. */
type Item = Buffer | null;

/**
 * One direction of a proxied connection. Keeps the byte order whatever the mode: a chunk
 * never overtakes one that was delayed or held before it.
 */
export class Lane {
  /** Chunks waiting for their time, in order; `at` never decreases along the queue. */
  private readonly queue: { at: number; item: Item }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly held: Item[] = [];

  constructor(
    private readonly source: Socket,
    private readonly target: Socket,
    private readonly stats: ProxyStats,
  ) {}

  /** Forwards `item` according to `mode`. */
  push(item: Item, mode: ProxyMode): void {
    if (mode.kind === "blackhole" || this.held.length > 0) {
      this.held.push(item);
      // Backpressure instead of an unbounded buffer: the sender's kernel queue fills up.
      this.source.pause();
      return;
    }
    if (mode.kind === "delay") {
      const spike =
        mode.spikeMs !== undefined && Math.random() * 100 < (mode.spikePercent ?? 0)
          ? mode.spikeMs
          : 0;
      this.schedule(item, mode.latencyMs + Math.random() * mode.jitterMs + spike);
      this.stats.delayedChunks += 1;
      return;
    }
    this.schedule(item, 0);
  }

  /** Lets held chunks go, in order, under the new `mode`. */
  release(mode: ProxyMode): void {
    if (mode.kind === "blackhole") return;
    const items = this.held.splice(0);
    for (const item of items) this.push(item, mode);
    if (!this.source.destroyed) this.source.resume();
  }

  /** Drops what is queued or held: the connection is gone. */
  dispose(): void {
    clearTimeout(this.timer);
    this.queue.length = 0;
    this.held.length = 0;
  }

  /** Whether anything is held back now. */
  get stalled(): boolean {
    return this.held.length > 0;
  }

  private schedule(item: Item, delayMs: number): void {
    const now = performance.now();
    if (delayMs <= 0 && this.queue.length === 0) {
      this.write(item);
      return;
    }
    const last = this.queue.at(-1)?.at ?? 0;
    this.queue.push({ at: Math.max(last, now + delayMs), item });
    this.arm();
  }

  // One timer per lane for the head of the queue: separate timers with equal deadlines
  // may fire in any order, and a reordered chunk would corrupt the stream.
  private arm(): void {
    if (this.timer !== undefined) return;
    const head = this.queue[0];
    if (!head) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        const now = performance.now();
        while (this.queue.length > 0 && this.queue[0]!.at <= now + 1)
          this.write(this.queue.shift()!.item);
        this.arm();
      },
      Math.max(0, head.at - performance.now()),
    );
  }

  private write(item: Item): void {
    if (this.target.destroyed) return;
    if (item === null) this.target.end();
    else this.target.write(item);
  }
}
