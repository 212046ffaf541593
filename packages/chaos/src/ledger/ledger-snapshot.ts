import { createConnection } from "mysql2/promise";
import type { AccountRow, LedgerRow } from "./ledger-types.js";

/** The final state of the ledger database, fences as decimal strings. */
export async function readLedger(
  url: string,
): Promise<{ accounts: AccountRow[]; ledger: LedgerRow[] }> {
  const connection = await createConnection({
    uri: url,
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
  try {
    const [accounts] = await connection.query(
      "SELECT id, CAST(initial AS CHAR) AS initial, CAST(balance AS CHAR) AS balance, CAST(fence AS CHAR) AS fence FROM account ORDER BY id",
    );
    const [rows] = await connection.query(
      `SELECT id, op_id, account, worker, lock_id, CAST(fence AS CHAR) AS fence, delta,
              CAST(balance_before AS CHAR) AS balance_before, CAST(balance_after AS CHAR) AS balance_after, mono,
              CAST(TIMESTAMPDIFF(MICROSECOND, '2000-01-01', db_time) AS CHAR) AS db_us
         FROM ledger ORDER BY id`,
    );
    return {
      accounts: (accounts as Record<string, string | null>[]).map((a) => ({
        id: a.id!,
        initial: Number(a.initial),
        balance: Number(a.balance),
        fence: a.fence ?? null,
      })),
      ledger: (rows as Record<string, string | number>[]).map((r) => ({
        id: Number(r.id),
        opId: String(r.op_id),
        account: String(r.account),
        worker: String(r.worker),
        lockId: String(r.lock_id),
        fence: String(r.fence),
        delta: Number(r.delta),
        balanceBefore: Number(r.balance_before),
        balanceAfter: Number(r.balance_after),
        mono: Number(r.mono),
        dbMs: Number(r.db_us) / 1_000,
      })),
    };
  } finally {
    await connection.end();
  }
}

/**
 * How many grants Warden undid because fewer replicas than the resource's `waitReplicas`
 * acknowledged them, per resource: the audit's `replication-timeout` events (the chaos
 * workers never re-enter, so each is a grant taken back).
 */
export async function readUndoneGrants(wardenUrl: string): Promise<Record<string, number>> {
  const connection = await createConnection({ uri: wardenUrl });
  try {
    const [rows] = await connection.query(
      `SELECT resource, COUNT(*) AS n FROM lock_event
        WHERE type = 'replication-timeout'
        GROUP BY resource ORDER BY resource`,
    );
    return Object.fromEntries(
      (rows as { resource: string; n: number | string }[]).map((r) => [r.resource, Number(r.n)]),
    );
  } finally {
    await connection.end();
  }
}
