import type { Tier } from "@warden/contract";
import type { TieredLocks } from "../locks/tiered-locks-port.js";

/** What `/readyz` answers: 200 when ready, 503 with a reason when not. */
export interface Readiness {
  readonly status: 200 | 503;
  readonly body: {
    readonly ready: boolean;
    readonly tier: Tier;
    /** Why not ready; absent when ready. */
    readonly reason?: string;
  };
}

/**
 * `/readyz`: can this instance grant locks on the tier the fleet is on? `/healthz` only says
 * the process is up. Not ready while shutting down, while the tier in force does not answer
 * its probe, and while the fleet is on `local`: in-process locks exclude nobody outside this
 * process, so a resource that fails closed (the default) gets no lock at all there, and an
 * orchestrator should send such traffic to nobody rather than to this instance.
 */
export async function readinessOf(
  locks: Pick<TieredLocks, "tier" | "probeReady">,
  closing: boolean,
): Promise<Readiness> {
  const tier = locks.tier;
  if (closing) return notReady(tier, "shutting down");
  if (tier === "local") {
    return notReady(
      tier,
      "the fleet is on the local tier (neither Redis nor MySQL can grant): fail-closed " +
        "resources get no lock, and local locks exclude nobody outside one process",
    );
  }
  let answers: boolean;
  try {
    answers = await locks.probeReady();
  } catch {
    answers = false;
  }
  if (!answers) return notReady(tier, `the ${tier} tier does not answer its probe`);
  return { status: 200, body: { ready: true, tier } };
}

function notReady(tier: Tier, reason: string): Readiness {
  return { status: 503, body: { ready: false, tier, reason } };
}
