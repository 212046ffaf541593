/**
 * Prisma's own bookkeeping table, created exactly as its MySQL schema engine creates it,
 * so `prisma migrate status` / `deploy` agree with Warden's applier wherever the engine
 * can run.
 */
export const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             DATETIME(3),
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          DATETIME(3),
    started_at              DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    applied_steps_count     INTEGER UNSIGNED NOT NULL DEFAULT 0
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`;

/** One row of `_prisma_migrations`. */
export interface MigrationRow {
  readonly migration_name: string;
  readonly checksum: string;
  readonly finished_at: Date | null;
  readonly rolled_back_at: Date | null;
}

/** Rows that count: Prisma ignores rows marked rolled back. */
export const SELECT_MIGRATION_ROWS = `SELECT migration_name, checksum, finished_at, rolled_back_at
  FROM _prisma_migrations WHERE rolled_back_at IS NULL ORDER BY started_at`;

/** Recorded before the script runs, as Prisma does, so a crash leaves a visible failed row. */
export const INSERT_STARTED = `INSERT INTO _prisma_migrations
  (id, checksum, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, NOW(3), 0)`;

/** Prisma counts a whole migration script as one step. */
export const MARK_FINISHED = `UPDATE _prisma_migrations
  SET finished_at = NOW(3), applied_steps_count = 1 WHERE id = ?`;

/** What `prisma migrate status` shows for a failed migration. */
export const MARK_FAILED = `UPDATE _prisma_migrations SET logs = ? WHERE id = ?`;
