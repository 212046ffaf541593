import { randomBytes } from "node:crypto";
import { createPool, type Pool, type ResultSetHeader } from "mysql2/promise";
import type { Held, Variant } from "./variant.js";

/**
 * One statement decides: insert the key, or take over a row whose lease ended; a live row
 * is left alone. `token` is assigned before `expires_at` because MariaDB evaluates the
 * assignments left to right and both conditions must see the old expiry.
 * Affected rows: 1 inserted, 2 taken over, 0 held by someone else.
 * Parameters: 1 key, 2 token, 3 lease in µs.
 */
const ACQUIRE = `INSERT INTO bench_raw_lock (lock_key, token, expires_at)
  VALUES (?, ?, NOW(3) + INTERVAL ? MICROSECOND)
  ON DUPLICATE KEY UPDATE
    token = IF(expires_at <= NOW(3), VALUES(token), token),
    expires_at = IF(expires_at <= NOW(3), VALUES(expires_at), expires_at)`;

/** Deletes the row only if our token still holds it. Parameters: 1 key, 2 token. */
const RELEASE = "DELETE FROM bench_raw_lock WHERE lock_key = ? AND token = ?";

/**
 * The MySQL floor: a minimal lock library's two statements through mysql2 prepared
 * statements, on a pool as large as Warden's MySQL tier pool (10), so the comparison is
 * between statement paths, not pool sizes.
 */
export class RawMysqlVariant implements Variant {
  readonly name = "raw-mysql" as const;

  private constructor(
    private readonly pool: Pool,
    private readonly leaseMs: number,
  ) {}

  static async open(appDbUrl: string, leaseMs: number): Promise<RawMysqlVariant> {
    // Affected rows must count changed rows (1/2/0 above), not matched ones.
    const pool = createPool({ uri: appDbUrl, connectionLimit: 10, flags: ["-FOUND_ROWS"] });
    await pool.query("SELECT 1");
    return new RawMysqlVariant(pool, leaseMs);
  }

  async tryAcquire(businessKey: string): Promise<Held | null> {
    const token = randomBytes(16).toString("base64url");
    const [result] = await this.pool.execute<ResultSetHeader>(ACQUIRE, [
      businessKey,
      token,
      this.leaseMs * 1000,
    ]);
    if (result.affectedRows === 0) return null;
    return {
      finish: async () => {
        await this.pool.execute(RELEASE, [businessKey, token]);
      },
    };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
