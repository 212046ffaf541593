import { createConnection, type Connection, type Pool, type RowDataPacket } from "mysql2/promise";
import { sleep } from "./ids.js";

/**
 * Where a store's call and a test's transaction cross so that InnoDB sees a real lock
 * cycle: the call locks the key first (its row, or its index entry), then needs something
 * the test holds; the test then asks for the key.
 */
export interface DeadlockTrap {
  /**
   * Takes what the call needs after the key, in a mode several traps can share (a shared
   * row lock, or a gap lock): the next round's trap takes it while this round's still holds it.
   */
  readonly hold: (conn: Connection) => Promise<unknown>;
  /** Asks for the key the call holds: closes the cycle. */
  readonly close: (conn: Connection) => Promise<unknown>;
  /**
   * How the call's statement that waits for `hold` begins, as `information_schema.INNODB_TRX`
   * shows it (one of these).
   */
  readonly blocked: readonly string[];
}

// Rows each trap's transaction inserts first. InnoDB rolls back the lighter transaction of a
// cycle (fewer undo records and locks): with these the call is always the lighter one.
const BALLAST_ROWS = 200;

/**
 * Runs `call` and makes InnoDB pick it as the deadlock victim `rounds` times in a row, with
 * real lock cycles on `url`'s database (nothing is mocked). Each round: a trap transaction
 * holds what the call needs after the key; once the call waits for it, the trap asks for the
 * key; InnoDB rolls the call's statement (or transaction) back and the trap gets the key.
 * The next round's trap takes its hold before this round's lets go of the key, so the call's
 * next attempt, which waits for the key, always runs into it. Returns how `call` settled.
 */
export async function deadlockEveryAttempt<T>(
  url: string,
  admin: Pool,
  rounds: number,
  trap: DeadlockTrap,
  call: () => Promise<T>,
): Promise<PromiseSettledResult<T>> {
  await admin.query(
    "CREATE TABLE IF NOT EXISTS deadlock_ballast (id INT AUTO_INCREMENT PRIMARY KEY, pad CHAR(100) NOT NULL)",
  );
  const opened: Connection[] = [];
  const open = async (): Promise<Connection> => {
    const conn = await createConnection({ uri: url });
    opened.push(conn);
    await conn.query("START TRANSACTION");
    await conn.query(
      `INSERT INTO deadlock_ballast (pad) VALUES ${Array.from({ length: BALLAST_ROWS }, () => "('x')").join(", ")}`,
    );
    await trap.hold(conn);
    return conn;
  };
  let settled = false;
  try {
    let trapping = await open();
    const outcome = call()
      .then(
        (value): PromiseSettledResult<T> => ({ status: "fulfilled", value }),
        (reason: unknown): PromiseSettledResult<T> => ({ status: "rejected", reason }),
      )
      .finally(() => {
        settled = true;
      });
    for (let round = 1; round <= rounds; round += 1) {
      if (round > 1) {
        const next = await open();
        await trapping.query("ROLLBACK");
        trapping = next;
      }
      await waitForLockWait(admin, trap.blocked, () => settled);
      // InnoDB finds the cycle at once; the call is the victim and this gets the key.
      await trap.close(trapping);
    }
    await trapping.query("ROLLBACK");
    return await outcome;
  } finally {
    await Promise.all(opened.map((conn) => conn.end().catch(() => undefined)));
  }
}

/**
 * Waits (bounded: 6 s) until a transaction waits for a lock in a statement that begins with
 * one of `statements`. InnoDB serves `INNODB_TRX` from a cache it refreshes only when nobody
 * read it for 100 ms, so this reads it every 150 ms: each read is then fresh.
 */
async function waitForLockWait(
  pool: Pool,
  statements: readonly string[],
  gaveUp: () => boolean,
): Promise<void> {
  for (let attempt = 0; attempt < 40; attempt += 1) {
    await sleep(150);
    if (gaveUp()) throw new Error(`the call settled before waiting in ${statements.join(" | ")}`);
    const [rows] = await pool.query<RowDataPacket[]>(
      "SELECT trx_query FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'",
    );
    const waiting = rows.map((row) => String(row.trx_query ?? "").trimStart());
    if (waiting.some((sql) => statements.some((start) => sql.startsWith(start)))) return;
  }
  throw new Error(`no transaction waited in ${statements.join(" | ")} within 6 s`);
}
