import type { Pool, RowDataPacket } from "mysql2/promise";
import { sleep } from "./ids.js";

/**
 * Waits (bounded: 2 s) until a statement starting with `sql` is running on the server, as
 * `SHOW FULL PROCESSLIST` shows it: e.g. a DELETE that waits for a row lock held by the test.
 */
export async function waitForStatement(pool: Pool, sql: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const [rows] = await pool.query<RowDataPacket[]>("SHOW FULL PROCESSLIST");
    if (rows.some((row) => String(row.Info ?? "").startsWith(sql))) return;
    await sleep(10);
  }
  throw new Error(`no "${sql}" ran within 2 s`);
}
