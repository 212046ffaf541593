import { randomUUID } from "node:crypto";
import type { Connection, RowDataPacket } from "mysql2/promise";
import { MIGRATIONS_DIR } from "../paths.js";
import { connectCreatingDatabase } from "./ensure-database.js";
import { MigrateError } from "./migrate-error.js";
import { releaseMigrationLock, takeMigrationLock } from "./migration-lock.js";
import {
  CREATE_MIGRATIONS_TABLE,
  INSERT_STARTED,
  MARK_FAILED,
  MARK_FINISHED,
  SELECT_MIGRATION_ROWS,
  type MigrationRow,
} from "./migrations-table.js";
import { readMigrations, type MigrationFile } from "./read-migrations.js";

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /**
   * Directory of `<timestamp>_<name>/migration.sql` folders.
   * @defaultValue the repository's `prisma/migrations`
   */
  readonly migrationsDir?: string;
  /**
   * Longest wait for another process's migration lock, in ms.
   * @defaultValue 120 000 ms (a cold first migration of every table takes a few seconds)
   */
  readonly lockTimeoutMs?: number;
}

/** What {@link migrate} did. */
export interface MigrateResult {
  /** Names of the migrations applied by this call, in order; empty when up to date. */
  readonly applied: string[];
  /** The database this call created because it did not exist; null when it existed. */
  readonly createdDatabase: string | null;
}

const DEFAULT_LOCK_TIMEOUT_MS = 120_000;

/**
 * Applies the committed Prisma migrations that `url`'s database lacks, in order, and
 * records each in `_prisma_migrations` the way `prisma migrate deploy` does (same table,
 * checksums and timestamps), so Prisma's tools agree wherever its engine can run.
 * Creates the database when it does not exist. Idempotent and safe to call from several
 * processes at once (one advisory lock per database). Refuses to go on past a migration recorded as failed, like Prisma (P3009).
 */
export async function migrate(url: string, options: MigrateOptions = {}): Promise<MigrateResult> {
  const files = await readMigrations(options.migrationsDir ?? MIGRATIONS_DIR);
  // One session, so the advisory lock covers every statement; migration scripts hold
  // several statements each, which Prisma also sends in one go.
  // A missing database is created first (or the error says what an administrator must run).
  const { connection, created } = await connectCreatingDatabase(url, { multipleStatements: true });
  try {
    const lock = await takeMigrationLock(
      connection,
      options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
    );
    try {
      return { applied: await applyPending(connection, files), createdDatabase: created };
    } finally {
      await releaseMigrationLock(connection, lock);
    }
  } finally {
    await connection.end();
  }
}

async function applyPending(connection: Connection, files: MigrationFile[]): Promise<string[]> {
  await connection.query(CREATE_MIGRATIONS_TABLE);
  const [rows] = await connection.query<(MigrationRow & RowDataPacket)[]>(SELECT_MIGRATION_ROWS);
  const failed = rows.filter((row) => row.finished_at === null).map((row) => row.migration_name);
  if (failed.length > 0) {
    throw new MigrateError(
      `migrations recorded as failed: ${failed.join(", ")}; fix the database, then mark them ` +
        "rolled back (`prisma migrate resolve --rolled-back`) before migrating again",
    );
  }
  const done = new Set(rows.map((row) => row.migration_name));
  const applied: string[] = [];
  for (const file of files) {
    if (done.has(file.name)) continue;
    await applyOne(connection, file);
    applied.push(file.name);
  }
  return applied;
}

async function applyOne(connection: Connection, file: MigrationFile): Promise<void> {
  const id = randomUUID();
  await connection.execute(INSERT_STARTED, [id, file.checksum, file.name]);
  try {
    if (hasStatements(file.sql)) await connection.query(file.sql);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await connection.execute(MARK_FAILED, [`${file.name} failed: ${message}`, id]);
    throw new MigrateError(`migration ${file.name} failed: ${message}`, { cause: error });
  }
  await connection.execute(MARK_FINISHED, [id]);
}

// The server rejects an empty query, and Prisma accepts a migration of comments only.
function hasStatements(sql: string): boolean {
  return sql
    .split("\n")
    .map((line) => line.trim())
    .some((line) => line !== "" && !line.startsWith("--"));
}
