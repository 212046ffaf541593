import {
  InvalidArgumentError,
  LIMITS,
  validateLeaseMs,
  validateLockId,
  validateLockKey,
  type LeaseView,
} from "@warden/contract";
import { factsOf } from "../../store/lease-facts.js";
import type { ExtendInput } from "../../store/lock-store.js";
import { extendLock } from "../generated/lua-scripts.js";
import { ScriptBatcher } from "../script-batch.js";
import { ReplyCode, int, replyParts, str } from "../reply-code.js";
import { decodeLease } from "../lease-codec.js";
import { notHolder, type RedisOpContext } from "./redis-op-context.js";

/** The reply of `extendLock-2.lua`. */
export type ExtendReply =
  | {
      readonly code: ReplyCode.Ok;
      /** The lease string as stored after the extend (renewal counted). */
      readonly value: string;
      readonly ttlMs: number;
      readonly nowMs: number;
      /** The lock-delay that moved with the lease; 0 when it has none. */
      readonly delayMs: number;
    }
  | { readonly code: ReplyCode.BadLease | ReplyCode.NoLease | ReplyCode.OtherHolder };

const SCRIPT = "extendLock-2";

/** Checks and types a raw `extendLock-2.lua` reply. */
export function parseExtendReply(reply: unknown): ExtendReply {
  const [code, value, ttlMs, nowMs, delayMs] = replyParts(SCRIPT, reply, [
    ReplyCode.Ok,
    ReplyCode.BadLease,
    ReplyCode.NoLease,
    ReplyCode.OtherHolder,
  ]);
  if (code !== ReplyCode.Ok) {
    return { code: code as ReplyCode.BadLease | ReplyCode.NoLease | ReplyCode.OtherHolder };
  }
  return {
    code,
    value: str(SCRIPT, reply, value),
    ttlMs: int(SCRIPT, reply, ttlMs),
    nowMs: int(SCRIPT, reply, nowMs),
    delayMs: int(SCRIPT, reply, delayMs),
  };
}

/** LockStore.extend on Redis: a new remaining lease for the grant, renewal counted. */
export async function extendOp(ctx: RedisOpContext, input: ExtendInput): Promise<LeaseView> {
  const key = validateLockKey(input);
  const lockId = validateLockId(input.lockId);
  const leaseMs = validateLeaseMs(input.leaseMs);
  const reply = await ctx.caller.call(
    "extend",
    lockId,
    () =>
      ScriptBatcher.send(
        ctx.extends,
        ctx.client,
        extendLock,
        [ctx.keys.lease(key), ctx.keys.delay(key)],
        [lockId, leaseMs, LIMITS.maxLeaseMs],
      ),
    parseExtendReply,
    leaseMs,
  );
  switch (reply.code) {
    case ReplyCode.Ok: {
      const lease = decodeLease(key, reply.value, reply.ttlMs, reply.nowMs);
      ctx.events.lock(key, {
        type: "extend",
        ...factsOf(lease),
        leaseMs,
        expiresAt: lease.expiresAt,
        ...(reply.delayMs > 0 ? { lockDelayMs: reply.delayMs } : {}),
      });
      return lease;
    }
    case ReplyCode.BadLease:
      throw new InvalidArgumentError("leaseMs", `must be 1..${LIMITS.maxLeaseMs}`);
    case ReplyCode.NoLease:
    case ReplyCode.OtherHolder:
      throw notHolder(ctx, key, lockId, reply.code);
  }
}
