import { validateLockId, validateLockKey, type LeaseView, type LockKey } from "@warden/contract";
import { factsOf } from "../../store/lease-facts.js";
import type { ForceReleaseInput } from "../../store/lock-store.js";
import { forceRelease } from "../generated/lua-scripts.js";
import { decodeLease } from "../lease-codec.js";
import { callScript } from "../redis-connection.js";
import { ReplyCode, int } from "../reply-code.js";
import { parseLeaseReply } from "./inspect.js";
import type { RedisOpContext } from "./redis-op-context.js";

const SCRIPT = "forceRelease-2";

/** What {@link removeGrant} removed: the lease, and its lock-delay (0: none). */
export interface RemovedGrant {
  readonly lease: LeaseView;
  readonly delayMs: number;
}

/**
 * Removes the lease of `key` whatever its re-entry count (only `lockId`'s when not ""),
 * returning what was removed; no events. Used by force-release (`startDelay`: the key's
 * lock-delay, if its lease had one, runs from now) and to clean up grants whose outcome is
 * unknown or that too few replicas acknowledged (no delay: nobody was told of the grant).
 */
export async function removeGrant(
  ctx: RedisOpContext,
  key: LockKey,
  lockId: string,
  timeoutMs: number,
  startDelay = false,
): Promise<RemovedGrant | null> {
  const reply = await ctx.caller.call(
    "force-release",
    lockId,
    () =>
      callScript(
        ctx.client,
        forceRelease,
        [ctx.keys.lease(key), ctx.keys.delay(key)],
        [lockId, startDelay ? "delay" : ""],
      ),
    (raw) => {
      const lease = parseLeaseReply(SCRIPT, raw);
      const delayMs = lease.code === ReplyCode.Ok ? int(SCRIPT, raw, (raw as unknown[])[4]) : 0;
      return { ...lease, delayMs };
    },
    // As a lease: the call's deadline is min(commandTimeoutMs, timeoutMs).
    timeoutMs * 3,
  );
  return reply.code === ReplyCode.Ok
    ? { lease: decodeLease(key, reply.value, reply.ttlMs, reply.nowMs), delayMs: reply.delayMs }
    : null;
}

/** LockStore.forceRelease on Redis: an operator's removal, reported with the lease's facts. */
export async function forceReleaseOp(
  ctx: RedisOpContext,
  input: ForceReleaseInput,
): Promise<LeaseView | null> {
  const key = validateLockKey(input);
  const lockId = input.lockId === undefined ? "" : validateLockId(input.lockId);
  const removed = await removeGrant(ctx, key, lockId, ctx.commandTimeoutMs, true);
  if (!removed) return null;
  ctx.events.lock(key, {
    type: "force-release",
    ...factsOf(removed.lease),
    ...(removed.delayMs > 0 ? { lockDelayMs: removed.delayMs } : {}),
  });
  return removed.lease;
}
