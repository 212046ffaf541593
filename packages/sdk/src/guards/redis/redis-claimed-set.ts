import { InvalidArgumentError } from "@warden/contract";
import type { FencedHolder } from "../fenced-holder.js";
import type { GuardResult } from "../guard-result.js";
import { reportStale, requireFence } from "../require-fence.js";
import { claimedSet } from "./generated/lua-scripts.js";
import type { RedisScriptHost, RedisWriteTarget } from "./redis-guard-types.js";
import { runGuardScript } from "./run-guard-script.js";

/**
 * Read-modify-write, step 2: writes the fields only while the hash still carries this
 * lock's claim (fence AND lockId), atomically. `stale`: a newer holder claimed it.
 *
 * @throws InvalidArgumentError - the hash carries no claim of this lock (call
 *   {@link redisClaimFence} first).
 * @throws LockUnavailableError - a local-tier lock (no fence).
 */
export async function redisClaimedSet(
  client: RedisScriptHost,
  holder: FencedHolder,
  target: RedisWriteTarget,
): Promise<GuardResult> {
  const fence = requireFence(holder);
  const reply = await runGuardScript(client, claimedSet, target, fence, holder.lockId, target.set);
  if (reply.outcome === "unclaimed") {
    throw new InvalidArgumentError(
      "fence",
      `${target.key} is not claimed by lock ${holder.lockId}: call redisClaimFence before reading it`,
    );
  }
  if (reply.outcome === "stale") reportStale(holder, reply.currentFence, `redis:${target.key}`);
  return {
    outcome: reply.outcome === "stale" ? "stale" : "applied",
    currentFence: reply.currentFence,
  };
}
