import type { Pool } from "mysql2/promise";
import type { Logger } from "pino";
import type { Metrics } from "../metrics/metrics.js";
import { randomUUID } from "node:crypto";
import { closeLapsedHolds, insertAuditBatch, insertHoldBatch } from "./audit-insert.js";
import {
  auditRecord,
  holdPart,
  minuteCountId,
  type AuditRecord,
  type HoldPart,
} from "./audit-record.js";
import type { AuditSpool, SpoolEntry } from "./audit-spool.js";

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
  /** How often open holds past their expiry are closed as lapsed, in ms. @defaultValue 5 000 */
  readonly lapseEveryMs?: number;
  /**
   * How long after its expiry an open hold is closed as lapsed, in ms: longer than any
   * instance takes to write a release or renewal it has seen. @defaultValue 30 000
   */
  readonly lapseGraceMs?: number;
  /** Names this process's per-minute refusal counts. @defaultValue a random UUID */
  readonly writerId?: string;
}

interface RefusalCount {
  readonly tenantId: string | null;
  minuteMs: number;
  count: number;
  heldBy: string;
  dirty: boolean;
}

/**
 * The audit writer (docs/design.md#decisions-are-audited): lock events are buffered in
 * memory and written every `flushMs` in multi-row statements, idempotent by id, so writing
 * a batch twice stores each fact once (at-least-once). The lock path costs one row per
 * hold, not one per event (docs/decisions/0070): a grant, its renewals and its end update
 * one pending part of the hold's row while it waits for the flush, and parts flushed at
 * different times (or by different instances) merge into the same row. Refusals are
 * counted per resource and minute. When an insert fails the batch goes to the bounded
 * local spool and the writer keeps spooling until a replay of the spool succeeds; then it
 * resumes inserting.
 */
export class AuditWriter {
  /** Drained events and hold parts, waiting for MySQL or the spool. */
  private buffer: SpoolEntry[] = [];
  private events: AuditRecord[] = [];
  /** Parts not yet drained, by lockId; events of a hold update its part in place. */
  private holds = new Map<string, HoldPart>();
  private readonly refusals = new Map<string, RefusalCount>();
  private lastLapseMs = 0;
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
  private readonly lapseEveryMs: number;
  private readonly lapseGraceMs: number;
  private readonly writerId: string;

  constructor(private readonly options: AuditWriterOptions) {
    this.flushMs = options.flushMs ?? 250;
    this.batchSize = options.batchSize ?? 500;
    this.maxBuffered = options.maxBuffered ?? 50_000;
    this.insertTimeoutMs = options.insertTimeoutMs ?? 5_000;
    this.retryMs = options.retryMs ?? 1_000;
    this.lapseEveryMs = options.lapseEveryMs ?? 5_000;
    this.lapseGraceMs = options.lapseGraceMs ?? 30_000;
    this.writerId = options.writerId ?? randomUUID();
  }

  /** Starts the flush timer. */
  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  /** Buffers one event; cheap and synchronous (called from store event sinks). */
  write(record: AuditRecord): void {
    this.events.push(record);
    if (this.buffered >= this.maxBuffered) void this.flush();
  }

  /**
   * The pending part of the hold `lockId` of a key, made if there is none; the caller
   * fills in what it learned. Written at the next flush, merged with the hold's row.
   */
  hold(
    lockId: string,
    tenantId: string | null,
    resource: string,
    businessKey: string,
    at: number,
  ): HoldPart {
    let part = this.holds.get(lockId);
    if (!part) {
      part = holdPart(lockId, tenantId, resource, businessKey, at);
      this.holds.set(lockId, part);
      if (this.buffered >= this.maxBuffered) void this.flush();
    }
    return part;
  }

  /** Counts one refusal of `resource` in the minute of `at` (one row per resource-minute). */
  refusal(tenantId: string | null, resource: string, at: number, heldBy: string): void {
    const minuteMs = Math.floor(at / 60_000) * 60_000;
    let entry = this.refusals.get(resource);
    if (!entry) {
      entry = { tenantId, minuteMs, count: 0, heldBy, dirty: false };
      this.refusals.set(resource, entry);
    } else if (entry.minuteMs !== minuteMs) {
      if (entry.dirty) this.events.push(this.refusalRow(resource, entry));
      entry.minuteMs = minuteMs;
      entry.count = 0;
    }
    entry.count += 1;
    entry.heldBy = heldBy;
    entry.dirty = true;
  }

  /** Events and hold parts in memory. */
  get buffered(): number {
    return this.buffer.length + this.events.length + this.holds.size;
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

  /** Moves what is pending into the buffer: from here on, parts are never changed again. */
  private drain(): void {
    for (const record of this.events) this.buffer.push(record);
    this.events = [];
    for (const part of this.holds.values()) this.buffer.push(part);
    this.holds = new Map();
    const minuteMs = Math.floor(Date.now() / 60_000) * 60_000;
    for (const [resource, entry] of this.refusals) {
      if (entry.dirty) {
        this.buffer.push(this.refusalRow(resource, entry));
        entry.dirty = false;
      } else if (entry.minuteMs < minuteMs) {
        this.refusals.delete(resource);
      }
    }
  }

  private refusalRow(resource: string, entry: RefusalCount): AuditRecord {
    return auditRecord({
      id: minuteCountId(entry.minuteMs, this.writerId, resource),
      type: "refusal",
      tenantId: entry.tenantId,
      resource,
      at: entry.minuteMs,
      count: entry.count,
      reason:
        `${entry.count} refused in this minute (one server); last held by ${entry.heldBy}`.slice(
          0,
          500,
        ),
    });
  }

  private async flushOnce(): Promise<void> {
    this.drain();
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
    await this.closeLapsed();
  }

  private async closeLapsed(): Promise<void> {
    const now = Date.now();
    if (now - this.lastLapseMs < this.lapseEveryMs) return;
    this.lastLapseMs = now;
    try {
      const closed = await closeLapsedHolds(this.options.pool, now - this.lapseGraceMs);
      if (closed > 0) this.options.logger.info({ closed }, "audit: holds closed as lapsed");
    } catch (error) {
      this.options.logger.warn({ err: error }, "audit: closing lapsed holds failed");
    }
  }

  private async insert(batch: SpoolEntry[]): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`audit insert took over ${this.insertTimeoutMs} ms`)),
        this.insertTimeoutMs,
      );
    });
    try {
      const events: AuditRecord[] = [];
      const holds: HoldPart[] = [];
      for (const entry of batch) {
        if ("kind" in entry && entry.kind === "hold") holds.push(entry);
        else events.push(entry as AuditRecord);
      }
      const write = async () => {
        await insertHoldBatch(this.options.pool, holds);
        await insertAuditBatch(this.options.pool, events);
      };
      await Promise.race([write(), timeout]);
      this.options.metrics.auditWritten.inc(batch.length);
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
