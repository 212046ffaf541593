import { createHash } from "node:crypto";
import type { Connection, RowDataPacket } from "mysql2/promise";
import { MigrateError } from "./migrate-error.js";

/**
 * A server-wide advisory lock per database (MariaDB `GET_LOCK`), so server instances
 * that start together apply each migration once and the rest wait, then find nothing
 * to do. It belongs to the session: a crashed migrator releases it by disconnecting.
 */
export async function takeMigrationLock(
  connection: Connection,
  timeoutMs: number,
): Promise<string> {
  const [rows] = await connection.query<RowDataPacket[]>("SELECT DATABASE() AS db");
  const database = String(rows[0]?.db ?? "");
  if (database === "") throw new MigrateError("the database URL names no database");
  // GET_LOCK names are limited to 64 characters, database names too: hash to stay unique.
  const name = `warden_migrate:${createHash("sha256").update(database).digest("hex").slice(0, 40)}`;
  const [result] = await connection.query<RowDataPacket[]>("SELECT GET_LOCK(?, ?) AS got", [
    name,
    Math.ceil(timeoutMs / 1000),
  ]);
  if (result[0]?.got !== 1) {
    throw new MigrateError(`another migrator held lock "${name}" for more than ${timeoutMs} ms`);
  }
  return name;
}

/** Releases the lock taken by {@link takeMigrationLock}. */
export async function releaseMigrationLock(connection: Connection, name: string): Promise<void> {
  await connection.query("SELECT RELEASE_LOCK(?)", [name]);
}
