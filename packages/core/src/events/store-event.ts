import type { Holder, LockKey, Tier } from "../store/types.js";

interface EventBase extends LockKey {
  readonly tier: Tier;
  /** Wall-clock time of the event in ms since the Unix epoch (for audit, not for decisions). */
  readonly at: number;
}

/** A lease was granted, or re-entered by its holder. */
export interface GrantEvent extends EventBase {
  readonly type: "grant";
  readonly lockId: string;
  readonly fence: string | null;
  readonly holder: Holder;
  readonly leaseMs: number;
  readonly reentry: number;
}

/** An acquire was refused because another holder has the key. */
export interface RefusalEvent extends EventBase {
  readonly type: "refusal";
  readonly holder: Holder;
  readonly heldBy: Holder;
}

/** A release by the holder; `released` is false while re-entries remain. */
export interface ReleaseEvent extends EventBase {
  readonly type: "release";
  readonly lockId: string;
  readonly released: boolean;
}

/** A lease was extended by `leaseMs` from now. */
export interface ExtendEvent extends EventBase {
  readonly type: "extend";
  readonly lockId: string;
  readonly leaseMs: number;
}

/** A release or extend found the lease already gone: it expired before its holder let go. */
export interface ExpiredEvent extends EventBase {
  readonly type: "expired";
  readonly lockId: string;
}

/** An operator removed a lease. */
export interface ForceReleaseEvent extends EventBase {
  readonly type: "force-release";
  readonly lockId: string;
  readonly holder: Holder;
}

/** A grant's reply was lost; it is being released by lockId in the background. */
export interface OutcomeUnknownEvent extends EventBase {
  readonly type: "outcome-unknown";
  readonly lockId: string;
  readonly cleanedUp: boolean;
}

/** A grant was undone because too few replicas acknowledged it. */
export interface ReplicationTimeoutEvent extends EventBase {
  readonly type: "replication-timeout";
  readonly lockId: string;
  readonly required: number;
  readonly acknowledged: number;
}

/** Everything a store reports about individual locks. */
export type LockEvent =
  | GrantEvent
  | RefusalEvent
  | ReleaseEvent
  | ExtendEvent
  | ExpiredEvent
  | ForceReleaseEvent
  | OutcomeUnknownEvent
  | ReplicationTimeoutEvent;

/** The store bound a (new) fencing epoch to a node or tier. */
export interface EpochEvent {
  readonly type: "epoch";
  readonly tier: Tier;
  readonly at: number;
  readonly epoch: number;
  readonly reason: string;
  /** The Redis node (host:port) the epoch was written to, when there is one. */
  readonly node?: string;
}

/** Any event a store emits. */
export type StoreEvent = LockEvent | EpochEvent;

/**
 * Receives store events synchronously. Must be cheap and must not throw: stores call it on
 * their hot path (buffer, then write elsewhere).
 */
export type EventSink = (event: StoreEvent) => void;
