import type { Tier } from "@warden/contract";

/** The tier this server instance grants on, and how it got there. */
export interface TierSnapshot {
  readonly tier: Tier;
  /** Version of the shared `tier_state` row this view follows; bumps on every change. */
  readonly version: number;
  /** Fencing epoch minted for the current tier. */
  readonly epoch: number;
  /** When the tier last changed, ms since the Unix epoch (database clock when shared). */
  readonly since: number;
  readonly reason: string;
  /** Who changed it: "controller" or an operator's name. */
  readonly actor: string;
  /** Instance that made the change. */
  readonly instanceId: string;
  /** Pinned by an operator; automatic changes wait until the override is lifted. */
  readonly forced: boolean;
  /** True while MySQL is unreachable and this instance decides without the others. */
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
  /** ms since the Unix epoch. */
  readonly at: number;
}
