/** One ledger account as the run ends. */
export interface AccountRow {
  readonly id: string;
  /** Balance when the run started. */
  readonly initial: number;
  readonly balance: number;
  /** Fence of the last writer or claimer (decimal), null if never written. */
  readonly fence: string | null;
}

/**
 * One accepted write, inserted in the same transaction as the account update. Rows of
 * one account are in commit order by `id`: the guarded UPDATE holds the account's row
 * lock until COMMIT, so two writes to one account cannot interleave their inserts.
 */
export interface LedgerRow {
  readonly id: number;
  /** The worker's iteration: `<worker>.<inc>.<seq>`. */
  readonly opId: string;
  readonly account: string;
  readonly worker: string;
  readonly lockId: string;
  readonly fence: string;
  readonly delta: number;
  /** What the worker read and wrote. */
  readonly balanceBefore: number;
  readonly balanceAfter: number;
  /** The worker's monotonic clock just before the write, in ms. */
  readonly mono: number;
  /**
   * The ledger database's clock at the INSERT, in ms since 2000-01-01 (absent in runs made
   * before it was recorded): orders accepted writes of different accounts.
   */
  readonly dbMs?: number;
}
