import type { Connection } from "mysql2/promise";
import { keyName } from "../load/key-space.js";

/**
 * raw-mysql's lock table: one row per held key, as a minimal MySQL lock library keeps it.
 * `token` is the holder's random id (22 characters, like Warden's lockId).
 */
const CREATE_RAW_LOCK = `CREATE TABLE IF NOT EXISTS bench_raw_lock (
  lock_key   VARCHAR(191) NOT NULL PRIMARY KEY,
  token      CHAR(22)     NOT NULL,
  expires_at DATETIME(3)  NOT NULL
) ENGINE=InnoDB`;

/**
 * The "application" rows sdk-fenced-write updates: one per key, with the columns the SDK's
 * MySQL guard reads (`fence`, `lock_id`; MYSQL_GUARD_COLUMNS).
 */
const CREATE_FENCED = `CREATE TABLE IF NOT EXISTS bench_fenced (
  id      VARCHAR(64)     NOT NULL PRIMARY KEY,
  payload BIGINT          NOT NULL DEFAULT 0,
  fence   BIGINT UNSIGNED NULL,
  lock_id CHAR(22)        NULL
) ENGINE=InnoDB`;

/** Rows inserted per statement when filling `bench_fenced`. */
const INSERT_BATCH = 1_000;

/** Creates both tables and one `bench_fenced` row per key of a `keys`-sized space. */
export async function createAppSchema(connection: Connection, keys: number): Promise<void> {
  await connection.query(CREATE_RAW_LOCK);
  await connection.query(CREATE_FENCED);
  for (let start = 0; start < keys; start += INSERT_BATCH) {
    const rows = Array.from({ length: Math.min(INSERT_BATCH, keys - start) }, (_, i) => [
      keyName(start + i),
    ]);
    await connection.query("INSERT IGNORE INTO bench_fenced (id) VALUES ?", [rows]);
  }
}
