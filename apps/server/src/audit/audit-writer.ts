import type { Pool } from "mysql2/promise";
import type { Logger } from "pino";
import type { Metrics } from "../metrics/metrics.js";
import { insertAuditBatch } from "./audit-insert.js";
import type { AuditRecord } from "./audit-record.js";
import type { AuditSpool } from "./audit-spool.js";

/** Options of {@link AuditWriter}. */
export interface AuditWriterOptions {
  /** Pool on Warden's database (UTC timezone). */
  readonly pool: Pool;
  readonly spool: AuditSpool;
  readonly metrics: Metrics;
  readonly logger: Logger;
  /** How often buffered events are written, in ms. @defaultValue 250 */
  readonly flushMs?: number;
  /** Events per INSERT. @defaultValue 500 */
  readonly batchSize?: number;
  /** Events kept in memory before they go to the spool even while MySQL is up. @defaultValue 50 000 */
  readonly maxBuffered?: number;
  /** Longest wait for one INSERT before it counts as failed, in ms. @defaultValue 5 000 */
  readonly insertTimeoutMs?: number;
  /** While MySQL is down, how often a replay is tried, in ms. @defaultValue 1 000 */
  readonly retryMs?: number;
}

/**
 * The audit writer (S6): events are buffered in memory and inserted in batches with
 * one multi-row `INSERT IGNORE` keyed by their pre-made id, so
 * writing a batch twice stores each event once (at-least-once, idempotent). When an
 * insert fails the batch goes to the bounded local spool and the writer keeps spooling
 * until a replay of the spool succeeds; then it resumes inserting.
 */
export class AuditWriter {
  private buffer: AuditRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private mysqlDown = false;
  private lastAttemptMs = 0;
  private full = false;
  private readonly flushMs: number;
  private readonly batchSize: number;
  private readonly maxBuffered: number;
  private readonly insertTimeoutMs: number;
  private readonly retryMs: number;

  constructor(private readonly options: AuditWriterOptions) {
    this.flushMs = options.flushMs ?? 250;
    this.batchSize = options.batchSize ?? 500;
    this.maxBuffered = options.maxBuffered ?? 50_000;
    this.insertTimeoutMs = options.insertTimeoutMs ?? 5_000;
    this.retryMs = options.retryMs ?? 1_000;
  }

  /** Starts the flush timer. */
  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  /** Buffers one event; cheap and synchronous (called from store event sinks). */
  write(record: AuditRecord): void {
    this.buffer.push(record);
    if (this.buffer.length >= this.maxBuffered) void this.flush();
  }

  /** Events in memory. */
  get buffered(): number {
    return this.buffer.length;
  }

  /** What the spool holds. */
  get spoolSize(): { bytes: number; events: number } {
    return this.options.spool.size;
  }

  /** True while the spool refuses batches (alert). */
  get spoolFull(): boolean {
    return this.full;
  }

  /** Writes everything buffered now (to MySQL, or to the spool); serialized. */
  flush(): Promise<void> {
    this.running = this.running
      .then(() => this.flushOnce())
      .catch((error: unknown) => {
        this.options.logger.error({ err: error }, "audit flush failed");
      });
    return this.running;
  }

  /** Stops the timer and flushes what is buffered (graceful shutdown). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private async flushOnce(): Promise<void> {
    if (this.mysqlDown || this.options.spool.pending) {
      if (Date.now() - this.lastAttemptMs < this.retryMs) return this.spoolBuffer();
      this.lastAttemptMs = Date.now();
      try {
        const replayed = await this.options.spool.replay(
          (batch) => this.insert(batch),
          this.batchSize,
        );
        if (this.mysqlDown)
          this.options.logger.info({ replayed }, "audit: MySQL is back, spool replayed");
        this.mysqlDown = false;
        this.full = false;
      } catch (error) {
        this.markDown(error);
        return this.spoolBuffer();
      }
    }
    while (this.buffer.length > 0) {
      const batch = this.buffer.slice(0, this.batchSize);
      try {
        await this.insert(batch);
        this.buffer.splice(0, batch.length);
      } catch (error) {
        this.markDown(error);
        return this.spoolBuffer();
      }
    }
  }

  private async insert(batch: AuditRecord[]): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`audit insert took over ${this.insertTimeoutMs} ms`)),
        this.insertTimeoutMs,
      );
    });
    try {
      const count = await Promise.race([insertAuditBatch(this.options.pool, batch), timeout]);
      this.options.metrics.auditWritten.inc(count);
    } finally {
      clearTimeout(timer);
    }
  }

  private async spoolBuffer(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.slice(0, this.batchSize);
      this.buffer.splice(0, batch.length);
      if (await this.options.spool.append(batch)) {
        this.options.metrics.auditSpooled.inc(batch.length);
        continue;
      }
      this.full = true;
      this.options.metrics.auditDropped.inc(batch.length);
      this.options.logger.error(
        { dropped: batch.length, firstId: batch[0]?.id, spool: this.options.spool.size },
        "audit spool is full: events dropped",
      );
    }
  }

  private markDown(error: unknown): void {
    if (!this.mysqlDown) {
      this.options.logger.warn({ err: error }, "audit: MySQL unavailable, spooling events locally");
    }
    this.mysqlDown = true;
    this.lastAttemptMs = Date.now();
  }
}
