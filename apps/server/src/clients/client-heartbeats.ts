import type { Pool, RowDataPacket } from "mysql2/promise";

/** What one heartbeat stores about an SDK instance (one row per tenant and clientId). */
export interface HeartbeatRow {
  readonly tenantId: string;
  readonly clientId: string;
  readonly host: string;
  readonly pid: number;
  readonly sdkVersion: string;
  readonly tier: string;
  readonly seenAt: Date;
  readonly localSince: Date | null;
}

// A new row starts now; an existing one keeps its first heartbeat's `started_at`.
const UPSERT =
  "INSERT INTO client_instance " +
  "(tenant_id, client_id, host, pid, sdk_version, tier, started_at, last_seen_at, local_since) " +
  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE " +
  "host = VALUES(host), pid = VALUES(pid), sdk_version = VALUES(sdk_version), " +
  "tier = VALUES(tier), last_seen_at = VALUES(last_seen_at), local_since = VALUES(local_since)";

const FIRST_SEEN =
  "SELECT started_at FROM client_instance WHERE tenant_id = ? AND client_id = ? LIMIT 1";

/**
 * SDK heartbeats in `client_instance`, written as plain SQL on the server's mysql2 pool
 * (docs/decisions/0215): every SDK instance sends one every few seconds, and through
 * Prisma each cost a read plus an upsert transaction, several round trips and ~2 ms of
 * server CPU. Here a heartbeat is one statement; the read is made only for a heartbeat
 * that reports local-mode instants, which are clamped to the row's first heartbeat.
 */
export class ClientHeartbeats {
  constructor(private readonly pool: Pool) {}

  /** When this server first saw the instance (its row's `started_at`), or null if never. */
  async firstSeenMs(tenantId: string, clientId: string): Promise<number | null> {
    const [rows] = await this.pool.query<RowDataPacket[]>(FIRST_SEEN, [tenantId, clientId]);
    const startedAt: unknown = rows[0]?.started_at;
    return startedAt instanceof Date ? startedAt.getTime() : null;
  }

  /** Creates or refreshes the instance's row in one statement. */
  async record(row: HeartbeatRow): Promise<void> {
    await this.pool.query(UPSERT, [
      row.tenantId,
      row.clientId,
      row.host,
      row.pid,
      row.sdkVersion,
      row.tier,
      row.seenAt,
      row.seenAt,
      row.localSince,
    ]);
  }
}
