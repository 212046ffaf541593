import type { FencedHolder } from "../fenced-holder.js";
import type { GuardOutcome, GuardResult } from "../guard-result.js";
import { reportStale, requireFence } from "../require-fence.js";
import { fencedSet } from "./generated/lua-scripts.js";
import type { RedisScriptHost, RedisWriteTarget } from "./redis-guard-types.js";
import { runGuardScript } from "./run-guard-script.js";

/**
 * A blind write to a Redis hash guarded by the lock's fence (compare-and-set in one Lua
 * script): the fields are written only if the hash records an older fence or none, and
 * the hash then records ours. Not enough for read-modify-write: use
 * {@link redisClaimFence} + {@link redisClaimedSet}.
 *
 * @throws LockUnavailableError - a local-tier lock (no fence).
 */
export async function redisFencedSet(
  client: RedisScriptHost,
  holder: FencedHolder,
  target: RedisWriteTarget,
): Promise<GuardResult> {
  const fence = requireFence(holder);
  const reply = await runGuardScript(client, fencedSet, target, fence, holder.lockId, target.set);
  if (reply.outcome === "stale") reportStale(holder, reply.currentFence, `redis:${target.key}`);
  return { outcome: reply.outcome as GuardOutcome, currentFence: reply.currentFence };
}
