import type { FencedHolder } from "../fenced-holder.js";
import type { GuardOutcome, GuardResult } from "../guard-result.js";
import { reportStale, requireFence } from "../require-fence.js";
import { claimFence } from "./generated/lua-scripts.js";
import type { RedisGuardTarget, RedisScriptHost } from "./redis-guard-types.js";
import { runGuardScript } from "./run-guard-script.js";

/**
 * Read-modify-write, step 1: claims the hash for this lock (fence and lockId) BEFORE the
 * caller reads it, so that an older holder paused between its own read and write can no
 * longer write (its {@link redisClaimedSet} comes back `stale`). Then read, compute, and
 * write with {@link redisClaimedSet}. `duplicate`: this lock had claimed it already.
 *
 * @throws LockUnavailableError - a local-tier lock (no fence).
 */
export async function redisClaimFence(
  client: RedisScriptHost,
  holder: FencedHolder,
  target: RedisGuardTarget,
): Promise<GuardResult> {
  const fence = requireFence(holder);
  const reply = await runGuardScript(client, claimFence, target, fence, holder.lockId);
  if (reply.outcome === "stale") reportStale(holder, reply.currentFence, `redis:${target.key}`);
  return { outcome: reply.outcome as GuardOutcome, currentFence: reply.currentFence };
}
