/** A value bound to a placeholder. */
export type SqlValue = string | number | bigint | boolean | Date | Buffer | null;

/**
 * Anything with mysql2's promise `execute` — a `Pool`, `PoolConnection` or `Connection`
 * from `mysql2/promise`. Pass a connection inside your transaction to guard writes in it.
 */
export interface SqlExecutor {
  execute(sql: string, values: unknown[]): Promise<[unknown, unknown]>;
}

/** Names of the guard's columns in the protected table. */
export interface MysqlGuardColumns {
  /** `BIGINT UNSIGNED NULL`: the fence of the last holder that wrote or claimed the row. */
  readonly fence: string;
  /** `CHAR(22) NULL` (or VARCHAR): that holder's lockId. */
  readonly lockId: string;
  /** `BIGINT UNSIGNED NOT NULL DEFAULT 0`: bumped by every versioned write. */
  readonly version: string;
}

/**
 * Default column names. The protected table needs, besides its own columns:
 *
 * ```sql
 * fence   BIGINT UNSIGNED NULL,        -- fence of the last writer / claimer
 * lock_id CHAR(22) NULL,               -- its lockId
 * version BIGINT UNSIGNED NOT NULL DEFAULT 0   -- only for versionedUpdate
 * ```
 */
export const MYSQL_GUARD_COLUMNS: Readonly<MysqlGuardColumns> = Object.freeze({
  fence: "fence",
  lockId: "lock_id",
  version: "version",
});

/** One row of a table, named by equality on a unique key. */
export interface MysqlGuardTarget {
  /** Table name (letters, digits, `_`, `$`; optionally `schema.table`). */
  readonly table: string;
  /** Column = value pairs that identify exactly one existing row (a unique key). */
  readonly where: Readonly<Record<string, SqlValue>>;
  /** Column names, if not the defaults ({@link MYSQL_GUARD_COLUMNS}). */
  readonly columns?: Partial<MysqlGuardColumns>;
}

/** A row and the column values to write into it. */
export interface MysqlWriteTarget extends MysqlGuardTarget {
  /** Column = value pairs to write (values only: compute expressions before). */
  readonly set: Readonly<Record<string, SqlValue>>;
}

/** A write that also checks the version the caller read. */
export interface VersionedWriteTarget extends MysqlWriteTarget {
  /** The `version` column's value as read together with the data being modified. */
  readonly expectedVersion: number | bigint | string;
}
