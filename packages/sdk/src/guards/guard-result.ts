/**
 * What a fence guard did:
 * - `applied`: written (or claimed) under our fence.
 * - `duplicate`: our own earlier attempt already did it (a retry): treat as done.
 * - `stale`: a newer holder's fence is recorded: this holder lost the lock. Stop, alert,
 *   and never retry (the guard reported it to the server).
 * - `conflict`: only from the versioned form: the row changed since it was read (an
 *   older holder's write that landed first, or another write of ours); read it again
 *   and retry while the lock is still held.
 */
export type GuardOutcome = "applied" | "duplicate" | "stale" | "conflict";

/** A guard's answer. */
export interface GuardResult {
  readonly outcome: GuardOutcome;
  /** The fence recorded at the resource when the guard answered; null when none was. */
  readonly currentFence: string | null;
}
