import type { Holder, LockKey, Tier } from "@warden/contract";
import type { LeaseFacts } from "../store/lease-facts.js";

interface EventBase extends LockKey {
  readonly tier: Tier;
  /** Wall-clock time of the event in ms since the Unix epoch (for audit, not for decisions). */
  readonly at: number;
}

/**
 * A lease was granted, or re-entered by its holder. `grantedAt` and `renewals` are the
 * grant's as stored (a re-entry keeps the first grant's); both were added without changing
 * the other fields.
 */
export interface GrantEvent extends EventBase {
  readonly type: "grant";
  readonly lockId: string;
  readonly fence: string | null;
  readonly holder: Holder;
  readonly leaseMs: number;
  readonly reentry: number;
  readonly grantedAt: number;
  readonly renewals: number;
  /**
   * The lock-delay the store keeps with this lease (docs/decisions/0175), when it has one;
   * set by the Redis store, whose lease mirror carries it to the MySQL tier.
   */
  readonly lockDelayMs?: number;
}

/** An acquire was refused because another holder has the key. */
export interface RefusalEvent extends EventBase {
  readonly type: "refusal";
  readonly holder: Holder;
  readonly heldBy: Holder;
}

/**
 * A release by the holder; `released` is false while re-entries remain (`reentry` of them).
 * Carries the facts of the lease it acted on (fence, holder, grantedAt, renewals) as the
 * store kept them, so any instance can audit it; `type`, `lockId` and `released` are as
 * before.
 */
export interface ReleaseEvent extends EventBase, LeaseFacts {
  readonly type: "release";
  readonly released: boolean;
  readonly reentry: number;
  /**
   * Whether a caller refused this key may be waiting for its release elsewhere (another
   * server instance): false when the store knows nobody was refused since the grant, so the
   * release need not be announced beyond this process. Only the Redis store tracks it
   * (decision 0206); absent means unknown: announce.
   */
  readonly watched?: boolean;
}

/**
 * A lease was extended by `leaseMs` from now. Carries the facts of the extended lease
 * (`renewals` counts this extend) and its new expiry on the store clock; `type`, `lockId`
 * and `leaseMs` are as before.
 */
export interface ExtendEvent extends EventBase, LeaseFacts {
  readonly type: "extend";
  readonly leaseMs: number;
  readonly expiresAt: number;
  /** The lock-delay that moved with the lease, when it has one (Redis store; see GrantEvent). */
  readonly lockDelayMs?: number;
}

/** A release or extend found the lease already gone: it expired before its holder let go. */
export interface ExpiredEvent extends EventBase {
  readonly type: "expired";
  readonly lockId: string;
}

/**
 * An operator removed a lease. Carries the facts of the removed lease; `type`, `lockId`
 * and `holder` are as before.
 */
export interface ForceReleaseEvent extends EventBase, LeaseFacts {
  readonly type: "force-release";
  /**
   * The lock-delay that now runs from this removal, when the lease had one (Redis store;
   * see GrantEvent).
   */
  readonly lockDelayMs?: number;
}

/** A grant's reply was lost; it is being released by lockId in the background. */
export interface OutcomeUnknownEvent extends EventBase {
  readonly type: "outcome-unknown";
  readonly lockId: string;
  readonly cleanedUp: boolean;
}

/**
 * A grant was undone because too few replicas acknowledged it. With `entryOnly` it was a
 * re-entry: only that entry was given back, and the lease `lockId` it re-entered lives on.
 */
export interface ReplicationTimeoutEvent extends EventBase {
  readonly type: "replication-timeout";
  readonly lockId: string;
  readonly required: number;
  readonly acknowledged: number;
  readonly entryOnly?: boolean;
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
