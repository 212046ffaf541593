import type { Pool, PoolConnection, RowDataPacket } from "mysql2/promise";
import type { Tier } from "@warden/contract";
import type { TierSnapshot, TierTransitionRow } from "./tier-snapshot.js";

interface StateRow extends RowDataPacket {
  tier: Tier;
  version: string;
  epoch: string;
  reason: string;
  actor: string;
  instance_id: string;
  since_ms: string;
  forced: number;
}

interface TransitionRow extends RowDataPacket {
  id: string;
  from_tier: Tier;
  to_tier: Tier;
  epoch: string;
  reason: string;
  actor: string;
  instance_id: string;
  at_ms: string;
}

/** A change to write with compare-and-set. */
export interface TierWrite {
  readonly tier: Tier;
  readonly epoch: number;
  readonly reason: string;
  readonly actor: string;
  readonly instanceId: string;
  readonly forced: boolean;
}

/**
 * The shared `tier_state` row (versioned, changed only by compare-and-set), the
 * `tier_transition` history, and instance liveness through named MySQL locks: an
 * instance holds `warden.instance.<id>` on its own connection for as long as it lives.
 */
export class TierStateRepository {
  private liveness: PoolConnection | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly timeoutMs: number,
  ) {}

  /** True when MySQL answers `SELECT 1` in time. */
  async ping(): Promise<boolean> {
    try {
      await this.pool.query({ sql: "SELECT 1", timeout: this.timeoutMs });
      return true;
    } catch {
      return false;
    }
  }

  /** Reads the row, creating it (tier redis, version 1) on an empty database. */
  async read(initialEpoch: number, instanceId: string): Promise<TierSnapshot> {
    await this.pool.query({
      sql: `INSERT IGNORE INTO tier_state (id, tier, version, epoch, reason, actor, instance_id, changed_at, forced)
            VALUES (1, 'redis', 1, ?, 'initial', 'controller', ?, NOW(3), 0)`,
      values: [initialEpoch, instanceId],
      timeout: this.timeoutMs,
    });
    const [rows] = await this.pool.query<StateRow[]>({
      sql: `SELECT tier, version, epoch, reason, actor, instance_id, forced,
                   CAST(UNIX_TIMESTAMP(changed_at) * 1000 AS UNSIGNED) AS since_ms
            FROM tier_state WHERE id = 1`,
      timeout: this.timeoutMs,
    });
    const row = rows[0];
    if (!row) throw new Error("tier_state row missing after insert");
    return {
      tier: row.tier,
      version: Number(row.version),
      epoch: Number(row.epoch),
      since: Number(row.since_ms),
      reason: row.reason,
      actor: row.actor,
      instanceId: row.instance_id,
      forced: Boolean(row.forced),
      decidedAlone: false,
    };
  }

  /**
   * Writes `change` if the row is still at `expectedVersion`, and records the transition
   * in the same transaction. False when another instance changed it first.
   */
  async compareAndSet(
    expectedVersion: number,
    fromTier: Tier,
    change: TierWrite,
  ): Promise<boolean> {
    const connection = await this.pool.getConnection();
    try {
      await connection.beginTransaction();
      const [result] = await connection.query({
        sql: `UPDATE tier_state SET tier = ?, version = version + 1, epoch = ?, reason = ?, actor = ?,
                     instance_id = ?, changed_at = NOW(3), forced = ?
              WHERE id = 1 AND version = ?`,
        values: [
          change.tier,
          change.epoch,
          change.reason,
          change.actor,
          change.instanceId,
          change.forced,
          expectedVersion,
        ],
        timeout: this.timeoutMs,
      });
      if ((result as { affectedRows: number }).affectedRows !== 1) {
        await connection.rollback();
        return false;
      }
      await connection.query({
        sql: `INSERT INTO tier_transition (from_tier, to_tier, epoch, reason, actor, instance_id, at)
              VALUES (?, ?, ?, ?, ?, ?, NOW(3))`,
        values: [
          fromTier,
          change.tier,
          change.epoch,
          change.reason,
          change.actor,
          change.instanceId,
        ],
        timeout: this.timeoutMs,
      });
      await connection.commit();
      return true;
    } catch (error) {
      await connection.rollback().catch(() => undefined);
      throw error;
    } finally {
      connection.release();
    }
  }

  /** The newest `limit` transitions, newest first. */
  async history(limit: number): Promise<TierTransitionRow[]> {
    const [rows] = await this.pool.query<TransitionRow[]>({
      sql: `SELECT id, from_tier, to_tier, epoch, reason, actor, instance_id,
                   CAST(UNIX_TIMESTAMP(at) * 1000 AS UNSIGNED) AS at_ms
            FROM tier_transition ORDER BY id DESC LIMIT ?`,
      values: [limit],
      timeout: this.timeoutMs,
    });
    return rows.map((row) => ({
      id: String(row.id),
      fromTier: row.from_tier,
      toTier: row.to_tier,
      epoch: Number(row.epoch),
      reason: row.reason,
      actor: row.actor,
      instanceId: row.instance_id,
      at: Number(row.at_ms),
    }));
  }

  /** Holds this instance's liveness lock; call again after MySQL comes back. */
  async holdLiveness(instanceId: string): Promise<void> {
    if (this.liveness) {
      try {
        await this.liveness.query({ sql: "SELECT 1", timeout: this.timeoutMs });
        return;
      } catch {
        this.liveness.destroy();
        this.liveness = undefined;
      }
    }
    const connection = await this.pool.getConnection();
    await connection.query({
      sql: "SELECT GET_LOCK(?, 0)",
      values: [livenessLock(instanceId)],
      timeout: this.timeoutMs,
    });
    this.liveness = connection;
  }

  /** Whether the instance still holds its liveness lock (it is running and reaches MySQL). */
  async isAlive(instanceId: string): Promise<boolean> {
    const [rows] = await this.pool.query<RowDataPacket[]>({
      sql: "SELECT IS_USED_LOCK(?) AS holder",
      values: [livenessLock(instanceId)],
      timeout: this.timeoutMs,
    });
    return rows[0]?.holder !== null && rows[0]?.holder !== undefined;
  }

  /** Lets go of the liveness lock. */
  close(): void {
    this.liveness?.destroy();
    this.liveness = undefined;
  }
}

function livenessLock(instanceId: string): string {
  return `warden.instance.${instanceId}`.slice(0, 64);
}
