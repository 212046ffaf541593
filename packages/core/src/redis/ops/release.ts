import { validateLockId, validateLockKey, type LockKey } from "@warden/contract";
import type { LeaseFacts } from "../../store/lease-facts.js";
import type { ReleaseInput, ReleaseResult } from "../../store/lock-store.js";
import { releaseLock } from "../generated/lua-scripts.js";
import { parseLease, type StoredLease } from "../lease-codec.js";
import { callScript } from "../redis-connection.js";
import { ReplyCode, int, replyParts, str } from "../reply-code.js";
import { notHolder, type RedisOpContext } from "./redis-op-context.js";

/** The reply of `releaseLock-3.lua`. */
export type ReleaseReply =
  | {
      readonly code: ReplyCode.Ok;
      readonly remaining: number;
      readonly before: StoredLease;
      /** The key is free now and a caller refused it may be waiting (decision 0206). */
      readonly watched: boolean;
    }
  | { readonly code: ReplyCode.NoLease | ReplyCode.OtherHolder };

const SCRIPT = "releaseLock-3";

/** Checks and types a raw `releaseLock-3.lua` reply. */
export function parseReleaseReply(reply: unknown): ReleaseReply {
  const [code, remaining, value, watched] = replyParts(SCRIPT, reply, [
    ReplyCode.Ok,
    ReplyCode.NoLease,
    ReplyCode.OtherHolder,
  ]);
  if (code !== ReplyCode.Ok) return { code: code as ReplyCode.NoLease | ReplyCode.OtherHolder };
  return {
    code,
    remaining: int(SCRIPT, reply, remaining),
    before: parseLease(str(SCRIPT, reply, value)),
    watched: int(SCRIPT, reply, watched) === 1,
  };
}

/** Sends one release of `lockId` on `key` (no validation, no events). */
export function sendRelease(
  ctx: RedisOpContext,
  key: LockKey,
  lockId: string,
): Promise<ReleaseReply> {
  return ctx.caller.call(
    "release",
    lockId,
    () =>
      ctx.releases
        ? ctx.releases.send(ctx.keys.forRelease(key), [lockId])
        : callScript(ctx.client, releaseLock, ctx.keys.forRelease(key), [lockId]),
    parseReleaseReply,
  );
}

/** LockStore.release on Redis: one entry of the grant; reports the lease it acted on. */
export async function releaseOp(ctx: RedisOpContext, input: ReleaseInput): Promise<ReleaseResult> {
  const key = validateLockKey(input);
  const lockId = validateLockId(input.lockId);
  const reply = await sendRelease(ctx, key, lockId);
  if (reply.code !== ReplyCode.Ok) throw notHolder(ctx, key, lockId, reply.code);
  const before = reply.before;
  const lease: LeaseFacts = {
    lockId: before.lockId,
    fence: before.fence,
    holder: before.holder,
    grantedAt: before.grantedAt,
    renewals: before.renewals,
  };
  const released = reply.remaining === 0;
  ctx.events.lock(key, {
    type: "release",
    ...lease,
    released,
    reentry: reply.remaining,
    watched: reply.watched,
  });
  return { released, reentry: reply.remaining, lease };
}
