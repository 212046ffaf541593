import { createConnection } from "mysql2/promise";

/** The guarded table: the SDK's guard columns (`fence`, `lock_id`, `version`) beside the balance. */
const ACCOUNT_TABLE = `CREATE TABLE account (
  id VARCHAR(32) PRIMARY KEY,
  initial BIGINT NOT NULL,
  balance BIGINT NOT NULL,
  fence BIGINT UNSIGNED NULL,
  lock_id VARCHAR(64) NULL,
  version BIGINT UNSIGNED NOT NULL DEFAULT 0
) ENGINE=InnoDB`;

/**
 * One row per accepted write, stamped by the ledger database's own clock (\`db_time\`, at
 * the INSERT, under the guarded UPDATE's row lock). Deliberately no unique key on op_id: a write recorded twice
 * must show up in the checker, not be silently refused by the database.
 */
const LEDGER_TABLE = `CREATE TABLE ledger (
  id BIGINT AUTO_INCREMENT PRIMARY KEY,
  op_id VARCHAR(64) NOT NULL,
  account VARCHAR(32) NOT NULL,
  worker VARCHAR(16) NOT NULL,
  lock_id VARCHAR(64) NOT NULL,
  fence BIGINT UNSIGNED NOT NULL,
  delta INT NOT NULL,
  balance_before BIGINT NOT NULL,
  balance_after BIGINT NOT NULL,
  mono DOUBLE NOT NULL,
  db_time DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  KEY ledger_account (account, id)
) ENGINE=InnoDB`;

/** Creates the ledger in the (empty) database at `url` with `accounts`, each at `initial`. */
export async function createLedger(
  url: string,
  accounts: readonly string[],
  initial: number,
): Promise<void> {
  const connection = await createConnection({ uri: url });
  try {
    await connection.query(ACCOUNT_TABLE);
    await connection.query(LEDGER_TABLE);
    for (const id of accounts) {
      await connection.execute("INSERT INTO account (id, initial, balance) VALUES (?, ?, ?)", [
        id,
        initial,
        initial,
      ]);
    }
  } finally {
    await connection.end();
  }
}
