/**
 * The tier facade the server is written against: the part of `@warden/core`'s
 * `TieredLocks` (packages/core/src/tier/tiered-locks.ts) it uses, declared here so that
 * the server depends on a narrow interface. Core's class satisfies it structurally.
 */
import type {
  AcquireInput,
  AcquireResult,
  ExtendInput,
  ForceReleaseInput,
  LeasePage,
  LeaseView,
  ListInput,
  LockKey,
  ReleaseInput,
  ReleaseResult,
  Tier,
} from "@warden/core";

/** The part of a resource's policy that decides where a grant may be made. */
export interface ResourcePolicy {
  readonly degrade: boolean;
  readonly localFallback: "deny" | "allow";
  readonly waitReplicas: number;
}

/** The controller's current decision. */
export interface TierSnapshot {
  readonly tier: Tier;
  /** Version of the shared tier_state row. */
  readonly version: number;
  /** Fencing epoch in force. */
  readonly epoch: number;
  /** Since when this tier is in force, ms since the Unix epoch. */
  readonly since: number;
  readonly reason: string;
  /** Who changed it: "controller" or an operator's name. */
  readonly actor: string;
  /** Instance that made the change. */
  readonly instanceId: string;
  /** An operator forced this tier. */
  readonly forced: boolean;
  /** This instance decided without reaching the shared tier_state row. */
  readonly decidedAlone: boolean;
}

/** One row of the tier history. */
export interface TierTransitionRow {
  readonly id: string;
  readonly fromTier: Tier;
  readonly toTier: Tier;
  readonly epoch: number;
  readonly reason: string;
  readonly actor: string;
  readonly instanceId: string;
  /** ms since the Unix epoch */
  readonly at: number;
}

/** Lock operations routed to the tier the controller decided. */
export interface TieredLocks {
  readonly tier: Tier;
  acquire(input: AcquireInput, policy: ResourcePolicy): Promise<AcquireResult>;
  release(input: ReleaseInput & { tier: Tier }): Promise<ReleaseResult>;
  extend(input: ExtendInput & { tier: Tier }): Promise<LeaseView>;
  inspect(key: LockKey): Promise<LeaseView | null>;
  /** Live leases of a resource in one tier (the current one by default). */
  list(input: ListInput & { readonly tier?: Tier }): Promise<LeasePage>;
  forceRelease(input: ForceReleaseInput): Promise<LeaseView | null>;
  snapshot(): TierSnapshot;
  history(limit: number): Promise<TierTransitionRow[]>;
  override(tier: Tier | null, actor: string, reason: string): Promise<TierSnapshot>;
  onTierChange(listener: (snapshot: TierSnapshot) => void): () => void;
  probeReady(): Promise<boolean>;
  close(): Promise<void>;
}
