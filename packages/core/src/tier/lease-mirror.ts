import type { Pool } from "mysql2/promise";
import type { StoreEvent } from "../events/store-event.js";

/** Options of {@link LeaseMirror}. */
export interface LeaseMirrorOptions {
  /** How often buffered changes are written, in ms. @defaultValue 200 */
  readonly flushIntervalMs?: number;
  /**
   * Added to every mirrored expiry, in ms: the mirror is judged on MySQL's clock while the
   * lease runs on Redis's, so it errs on the side of "still held". @defaultValue 1000
   */
  readonly clockMarginMs?: number;
  /**
   * Most keys buffered between flushes (a failed batch's changes included, kept for the
   * next one); beyond it changes are dropped and counted. @defaultValue 100000
   */
  readonly maxPending?: number;
}

/** How one batch of the mirror ended (only batches with rows to write are reported). */
export type MirrorBatchReport =
  | { readonly outcome: "ok"; readonly rows: number }
  | {
      readonly outcome: "failed";
      /** The statement's error. */
      readonly error: unknown;
      /** Changes buffered again for the next batch. */
      readonly kept: number;
      /** Changes given up: the buffer was full. */
      readonly dropped: number;
    };

/** Told how every batch of the mirror ended (logs); must not throw. */
export type MirrorListener = (report: MirrorBatchReport) => void;

/** What the mirror has done since it started, for metrics. */
export interface MirrorStats {
  /** Rows written (upserts plus deletes). */
  readonly written: number;
  /** Changes given up: the buffer was full, or full again when a failed batch came back. */
  readonly dropped: number;
  /** Batches with rows to write, by how they ended. */
  readonly batches: { readonly ok: number; readonly failed: number };
  /** Changes buffered now, waiting for the next batch. */
  readonly pending: number;
}

interface Upsert {
  readonly lockId: string;
  readonly fence: string;
  readonly expiresAtMs: number;
}

/** Most rows in one statement: a flush of 100 000 keys stays far below max_allowed_packet. */
const ROWS_PER_STATEMENT = 1_000;

function* chunks<T>(rows: readonly T[]): Generator<readonly T[]> {
  for (let at = 0; at < rows.length; at += ROWS_PER_STATEMENT) {
    yield rows.slice(at, at + ROWS_PER_STATEMENT);
  }
}

const DEFAULTS = Object.freeze({ flushIntervalMs: 200, clockMarginMs: 1_000, maxPending: 100_000 });

type PendingUpsert = Upsert & {
  resource: string;
  businessKey: string;
  /** The lease was granted through this mirror's server since its last batch. */
  grantedHere: boolean;
};
type PendingDelete = { resource: string; businessKey: string; lockId: string };

/**
 * Copies live Redis leases into `redis_lease_mirror` so that the MySQL tier refuses keys
 * still held in Redis after a degrade. Off the hot path: events are coalesced per key in
 * memory and written in one batch per interval; leases that end before the next batch are
 * skipped. A batch MySQL refuses is buffered again, under newer changes to the same keys,
 * and retried with the next one (docs/decisions/0221). Best effort by design: what it still
 * misses, the epoch bump at the switch fences.
 */
export class LeaseMirror {
  private readonly options: typeof DEFAULTS;
  private upserts = new Map<string, PendingUpsert>();
  private deletes = new Map<string, PendingDelete>();
  private timer: NodeJS.Timeout | undefined;
  /** Rows this mirror has written and not deleted, with their expiry (ms, wall clock). */
  private readonly mirrored = new Map<string, number>();
  private flushing: Promise<void> | undefined;
  private flushes = 0;
  private dropped = 0;
  private written = 0;
  private okBatches = 0;
  private failedBatches = 0;

  constructor(
    private readonly pool: Pool,
    options: LeaseMirrorOptions = {},
    private readonly listener?: MirrorListener,
  ) {
    this.options = {
      ...DEFAULTS,
      ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
    };
  }

  /** What the mirror has done since it started. */
  get stats(): MirrorStats {
    return {
      written: this.written,
      dropped: this.dropped,
      batches: { ok: this.okBatches, failed: this.failedBatches },
      pending: this.upserts.size + this.deletes.size,
    };
  }

  /** Starts the flush timer (unref'd). */
  start(): void {
    this.timer ??= setInterval(
      () => void this.flush().catch(() => undefined),
      this.options.flushIntervalMs,
    );
    this.timer.unref();
  }

  /** Feeds one Redis store event; cheap and synchronous. */
  record(event: StoreEvent): void {
    if (event.type === "epoch" || event.tier !== "redis") return;
    const id = `${event.resource}\u0000${event.businessKey}`;
    switch (event.type) {
      case "grant":
      case "extend": {
        // A lease with a lock-delay holds the key back for that long after it ends
        // involuntarily, so its row stays live until then (docs/decisions/0175).
        // A renewal carries its lease's fence too, so it writes the row whether or not the
        // grant's did (granted through another instance, or given up): docs/decisions/0221.
        const untilMs = event.at + event.leaseMs + (event.lockDelayMs ?? 0);
        const pending = this.upserts.get(id);
        const grantedHere =
          event.type === "grant" ||
          (pending?.grantedHere === true && pending.lockId === event.lockId);
        this.keep(id, event, event.fence ?? "0", untilMs, grantedHere);
        return;
      }
      case "force-release":
        // With a lock-delay the key stays held back for the delay from the removal.
        if (
          event.lockDelayMs &&
          this.keep(id, event, event.fence ?? "0", event.at + event.lockDelayMs, false)
        )
          return;
        this.forget(id, event);
        return;
      case "release":
        if (event.released) this.forget(id, event);
        return;
      case "refusal":
      case "expired":
      case "outcome-unknown":
      case "replication-timeout":
        return;
    }
  }

  /**
   * The key is free: drops its pending row, and deletes the lease's row unless this mirror
   * knows none was written. A lease granted elsewhere (another instance wrote its row) is
   * deleted too: the `DELETE` names the lockId, so it never removes another lease's row.
   */
  private forget(
    id: string,
    event: { resource: string; businessKey: string; lockId: string },
  ): void {
    const pending = this.upserts.get(id);
    this.upserts.delete(id);
    // A lease granted and released here between two batches never reaches MySQL at all.
    if (pending?.grantedHere && pending.lockId === event.lockId && !this.mirrored.has(id)) return;
    this.deletes.set(id, {
      resource: event.resource,
      businessKey: event.businessKey,
      lockId: event.lockId,
    });
  }

  /**
   * Buffers a row that keeps `id` held back in MySQL until `untilMs` (plus the clock
   * margin); false when that ends before the next batch (nothing to mirror).
   */
  private keep(
    id: string,
    event: { resource: string; businessKey: string; lockId: string },
    fence: string,
    untilMs: number,
    grantedHere: boolean,
  ): boolean {
    const expiresAtMs = untilMs + this.options.clockMarginMs;
    if (expiresAtMs < Date.now() + this.options.flushIntervalMs) return false;
    if (!this.upserts.has(id) && this.upserts.size >= this.options.maxPending) {
      this.dropped += 1;
      return true;
    }
    this.deletes.delete(id);
    this.upserts.set(id, {
      resource: event.resource,
      businessKey: event.businessKey,
      lockId: event.lockId,
      fence,
      expiresAtMs,
      grantedHere,
    });
    return true;
  }

  /** Writes what is buffered; concurrent calls share one write. */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush().catch(() => undefined);
  }

  /** Tracks which rows exist in the table, forgetting leases that have surely ended. */
  private remember(upserts: Map<string, Upsert>, deletes: Map<string, unknown>): void {
    const now = Date.now();
    for (const [id, expiresAtMs] of this.mirrored) if (expiresAtMs < now) this.mirrored.delete(id);
    for (const [id, upsert] of upserts) this.mirrored.set(id, upsert.expiresAtMs);
    for (const id of deletes.keys()) this.mirrored.delete(id);
  }

  /**
   * Writes what is buffered. A refused batch is buffered again for the next one and the
   * error rethrown to a caller of {@link flush}.
   */
  private async write(): Promise<void> {
    const taken = { upserts: this.upserts, deletes: this.deletes };
    const upserts = [...taken.upserts.values()];
    const deletes = [...taken.deletes.values()];
    const rows = upserts.length + deletes.length;
    this.remember(taken.upserts, taken.deletes);
    this.upserts = new Map();
    this.deletes = new Map();
    try {
      // One upsert for grants and renewals alike. A key's fences only grow, so a row with a
      // larger fence is a later lease's (another instance's mirror wrote it while this batch
      // waited, or was refused and kept): an older lease never replaces it. Assignments run
      // in order: `fence` goes last. (Renewals once went in a separate UPDATE joined by
      // lockId, which could not write a lease whose grant the mirror never wrote.)
      for (const rows of chunks(upserts)) {
        await this.pool.query(
          `INSERT INTO redis_lease_mirror (resource, business_key, lock_id, fence, expires_at) VALUES ${rows
            .map(() => "(?, ?, ?, ?, FROM_UNIXTIME(? / 1000))")
            .join(", ")}
           ON DUPLICATE KEY UPDATE
             lock_id = IF(VALUES(fence) >= fence, VALUES(lock_id), lock_id),
             expires_at = IF(VALUES(fence) >= fence, VALUES(expires_at), expires_at),
             fence = GREATEST(fence, VALUES(fence))`,
          rows.flatMap((u) => [u.resource, u.businessKey, u.lockId, u.fence, u.expiresAtMs]),
        );
      }
      for (const rows of chunks(deletes)) {
        await this.pool.query(
          `DELETE FROM redis_lease_mirror WHERE (resource, business_key, lock_id) IN (${rows.map(() => "(?, ?, ?)").join(", ")})`,
          rows.flatMap((d) => [d.resource, d.businessKey, d.lockId]),
        );
      }
    } catch (error) {
      this.failedBatches += 1;
      const { kept, dropped } = this.keepForRetry(taken);
      this.report({ outcome: "failed", error, kept, dropped });
      throw error;
    }
    if (rows > 0) {
      this.written += rows;
      this.okBatches += 1;
      this.report({ outcome: "ok", rows });
    }
    // Expired rows are harmless (readers compare with NOW(3)) but should not pile up.
    if (++this.flushes % 50 === 0) {
      await this.pool
        .query(
          "DELETE FROM redis_lease_mirror WHERE expires_at < NOW(3) - INTERVAL 10 SECOND LIMIT 500",
        )
        .catch(() => undefined);
    }
  }

  /**
   * Buffers a refused batch's changes again, under whatever was recorded for the same keys
   * while it was in flight (that is newer). Every statement is idempotent, so a batch that
   * failed halfway is simply written again.
   */
  private keepForRetry(taken: {
    upserts: Map<string, PendingUpsert>;
    deletes: Map<string, PendingDelete>;
  }): { kept: number; dropped: number } {
    let kept = 0;
    let dropped = 0;
    const horizon = Date.now() + this.options.flushIntervalMs;
    for (const [id, upsert] of taken.upserts) {
      // Ended before the next batch: nothing left to hold back.
      if (upsert.expiresAtMs < horizon) continue;
      // Renewed, replaced or ended in flight: the newer change stands for the key.
      if (this.upserts.has(id) || this.deletes.has(id)) continue;
      if (this.upserts.size + this.deletes.size >= this.options.maxPending) {
        dropped += 1;
        continue;
      }
      this.upserts.set(id, upsert);
      kept += 1;
    }
    for (const [id, pending] of taken.deletes) {
      // A new lease on the key overwrites the row (its fence is larger). A delete recorded
      // since stands for the key: if it is a later lease's, the refused one's row stays until
      // it expires, which errs on the side of "still held" like the clock margin.
      if (this.upserts.has(id) || this.deletes.has(id)) continue;
      if (this.upserts.size + this.deletes.size >= this.options.maxPending) {
        dropped += 1;
        continue;
      }
      this.deletes.set(id, pending);
      kept += 1;
    }
    this.dropped += dropped;
    return { kept, dropped };
  }

  private report(report: MirrorBatchReport): void {
    try {
      this.listener?.(report);
    } catch {
      // A listener's failure is not the mirror's.
    }
  }
}
