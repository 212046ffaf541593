import type { WorkerEvent } from "../log/events.js";
import type { AccountRow, LedgerRow } from "../ledger/ledger-types.js";

/** A ledger anomaly and when it happened (monotonic ms), to be attributed to a fault. */
export interface LedgerFinding {
  readonly kind: "stale-accepted" | "lost" | "doubled";
  readonly mono: number;
  readonly account: string;
  readonly detail: string;
}

/** What the ledger says about one account. */
export interface AccountAudit {
  readonly account: string;
  readonly initial: number;
  readonly final: number;
  /** initial + every accepted delta, each once. */
  readonly expected: number;
  readonly rows: number;
}

const byId = (a: LedgerRow, b: LedgerRow): number => a.id - b.id;

/**
 * Walks each account's ledger in commit order:
 * - stale write accepted: a row whose fence is below one already accepted for the account
 *   (or equal to it from another lock: two grants shared a fence);
 * - lost update: a row that did not start from the previous row's result (its writer read
 *   a balance another accepted write then overwrote), or a write its worker saw commit that
 *   is missing from the ledger;
 * - doubled update: an iteration recorded twice, or a final balance above what the
 *   recorded writes explain.
 */
export function auditLedger(
  accounts: readonly AccountRow[],
  ledger: readonly LedgerRow[],
  events: readonly WorkerEvent[],
): { findings: LedgerFinding[]; accounts: AccountAudit[] } {
  const findings: LedgerFinding[] = [];
  const audits: AccountAudit[] = [];
  const seenOps = new Set<string>();
  for (const account of accounts) {
    const rows = ledger.filter((row) => row.account === account.id).sort(byId);
    let running = account.initial;
    let maxFence: bigint | null = null;
    let maxFenceLock = "";
    let expected = account.initial;
    for (const row of rows) {
      const fence = BigInt(row.fence);
      if (
        maxFence !== null &&
        (fence < maxFence || (fence === maxFence && row.lockId !== maxFenceLock))
      ) {
        findings.push({
          kind: "stale-accepted",
          mono: row.mono,
          account: account.id,
          detail: `row ${row.id} (${row.opId}) fence ${row.fence} accepted after fence ${maxFence}`,
        });
      }
      if (maxFence === null || fence > maxFence) {
        maxFence = fence;
        maxFenceLock = row.lockId;
      }
      if (seenOps.has(row.opId)) {
        findings.push({
          kind: "doubled",
          mono: row.mono,
          account: account.id,
          detail: `row ${row.id}: iteration ${row.opId} recorded again`,
        });
      }
      seenOps.add(row.opId);
      if (row.balanceBefore !== running) {
        findings.push({
          kind: "lost",
          mono: row.mono,
          account: account.id,
          detail: `row ${row.id} (${row.opId}) read ${row.balanceBefore} but the ledger stood at ${running}`,
        });
      }
      running = row.balanceAfter;
      expected += row.delta;
    }
    if (account.balance > expected) {
      findings.push({
        kind: "doubled",
        mono: rows.at(-1)?.mono ?? 0,
        account: account.id,
        detail: `final balance ${account.balance} exceeds initial + accepted deltas ${expected}`,
      });
    } else if (
      account.balance < expected &&
      !findings.some((f) => f.kind === "lost" && f.account === account.id)
    ) {
      findings.push({
        kind: "lost",
        mono: rows.at(-1)?.mono ?? 0,
        account: account.id,
        detail: `final balance ${account.balance} below initial + accepted deltas ${expected}`,
      });
    }
    audits.push({
      account: account.id,
      initial: account.initial,
      final: account.balance,
      expected,
      rows: rows.length,
    });
  }
  const recorded = new Set(ledger.map((row) => row.opId));
  for (const event of events) {
    if (
      event.ev === "write" &&
      event.outcome === "applied" &&
      event.opId &&
      !recorded.has(event.opId)
    ) {
      findings.push({
        kind: "lost",
        mono: event.mono,
        account: event.account ?? "?",
        detail: `${event.opId} committed (worker log) but is not in the ledger`,
      });
    }
  }
  return { findings, accounts: audits };
}
