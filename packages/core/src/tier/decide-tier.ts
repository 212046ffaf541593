import type { Tier } from "@warden/contract";

/** What the controller knows when it decides. */
export interface TierInputs {
  readonly current: Tier;
  /** Pinned by an operator: nothing changes automatically. */
  readonly forced: boolean;
  /** Redis has not failed `failuresToDegrade` probes in a row. */
  readonly redisHealthy: boolean;
  /** Redis has answered `successesToRecover` probes in a row over the hold-down. */
  readonly redisRecovered: boolean;
  readonly mysqlUp: boolean;
  /**
   * This instance may lead a recovery to Redis: it made the last change, or the instance
   * that did is gone. Without this rule an instance cut off from Redis and one that
   * reaches it would switch the fleet back and forth; with it, the fleet stays on MySQL
   * until the instance that degraded sees Redis again.
   */
  readonly mayRecover: boolean;
}

/** A change the controller wants, with the reason recorded in the history. */
export interface TierChange {
  readonly tier: Tier;
  readonly reason: string;
}

/**
 * The degrade/recover rules (docs/decisions/0005). Returns null when the tier should stay.
 * Leaving MySQL or local for Redis needs a durable epoch, so it needs MySQL up.
 */
export function decideTier(inputs: TierInputs): TierChange | null {
  if (inputs.forced) return null;
  switch (inputs.current) {
    case "redis":
      if (inputs.redisHealthy) return null;
      return inputs.mysqlUp
        ? { tier: "mysql", reason: "redis probes failed" }
        : { tier: "local", reason: "redis and mysql probes failed" };
    case "mysql":
      if (!inputs.mysqlUp) return { tier: "local", reason: "mysql unreachable while degraded" };
      if (inputs.redisRecovered && inputs.mayRecover) {
        return { tier: "redis", reason: "redis healthy through the hold-down" };
      }
      return null;
    case "local":
      if (!inputs.mysqlUp) return null;
      return inputs.redisRecovered
        ? { tier: "redis", reason: "redis and mysql reachable again" }
        : { tier: "mysql", reason: "mysql reachable again" };
  }
}
