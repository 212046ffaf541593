import { createPool, type Pool } from "mysql2/promise";
import { uid } from "./stack.js";

/** A table protected by fences, as the MySQL guards expect it (README: "Fence guards"). */
export interface Ledger {
  readonly pool: Pool;
  readonly table: string;
  /** Inserts row `id` with `value`, no fence yet. */
  insert(id: number, value: number): Promise<void>;
  /** The row's value. */
  value(id: number): Promise<number>;
  close(): Promise<void>;
}

/** Creates a fresh guarded table in the test database at `url`. */
export async function createLedger(url: string): Promise<Ledger> {
  const pool = createPool({ uri: url, connectionLimit: 4 });
  const table = `ledger_${uid()}`;
  await pool.query(
    `CREATE TABLE \`${table}\` (
       id INT PRIMARY KEY,
       value INT NOT NULL,
       fence BIGINT UNSIGNED NULL,
       lock_id CHAR(22) NULL,
       version BIGINT UNSIGNED NOT NULL DEFAULT 0
     )`,
  );
  return {
    pool,
    table,
    async insert(id, value) {
      await pool.execute(`INSERT INTO \`${table}\` (id, value) VALUES (?, ?)`, [id, value]);
    },
    async value(id) {
      const [rows] = await pool.execute(`SELECT value FROM \`${table}\` WHERE id = ?`, [id]);
      return (rows as Array<{ value: number }>)[0]!.value;
    },
    close: () => pool.end(),
  };
}
