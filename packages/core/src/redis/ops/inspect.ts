import type { LeaseView, LockKey } from "@warden/contract";
import type { LockDelayView } from "../../store/lock-store.js";
import { inspectLock } from "../generated/lua-scripts.js";
import { decodeLease } from "../lease-codec.js";
import { callScript } from "../redis-connection.js";
import { ReplyCode, int, replyParts, str } from "../reply-code.js";
import type { RedisOpContext } from "./redis-op-context.js";

/** The reply of `forceRelease-2.lua` (and of `inspectLock-2.lua` when no delay is in force). */
export type LeaseReply =
  | {
      readonly code: ReplyCode.Ok;
      readonly value: string;
      readonly ttlMs: number;
      readonly nowMs: number;
    }
  | { readonly code: ReplyCode.Refused };

/** Checks and types a raw reply of `{1, value, pttlMs, nowMs}` or `{0}`. */
export function parseLeaseReply(script: string, reply: unknown): LeaseReply {
  const [code, value, ttlMs, nowMs] = replyParts(script, reply, [ReplyCode.Ok, ReplyCode.Refused]);
  if (code !== ReplyCode.Ok) return { code: ReplyCode.Refused };
  return {
    code,
    value: str(script, reply, value),
    ttlMs: int(script, reply, ttlMs),
    nowMs: int(script, reply, nowMs),
  };
}

/** The reply of `inspectLock-2.lua`: a lease, nothing, or a lock-delay in force. */
export type InspectReply =
  | LeaseReply
  | {
      readonly code: ReplyCode.LockDelay;
      readonly waitMs: number;
      readonly nowMs: number;
      /** The delay's end: the shadow key's expiry instant, the same for every read. */
      readonly untilMs: number;
    };

const INSPECT = "inspectLock-2";

/** Checks and types a raw `inspectLock-2.lua` reply. */
export function parseInspectReply(reply: unknown): InspectReply {
  const parts = replyParts(INSPECT, reply, [ReplyCode.Ok, ReplyCode.Refused, ReplyCode.LockDelay]);
  if (parts[0] !== ReplyCode.LockDelay) return parseLeaseReply(INSPECT, reply);
  return {
    code: ReplyCode.LockDelay,
    waitMs: int(INSPECT, reply, parts[1]),
    nowMs: int(INSPECT, reply, parts[2]),
    untilMs: int(INSPECT, reply, parts[3]),
  };
}

function readKey(ctx: RedisOpContext, key: LockKey): Promise<InspectReply> {
  return ctx.caller.call(
    "inspect",
    "",
    () => callScript(ctx.client, inspectLock, [ctx.keys.lease(key), ctx.keys.delay(key)], []),
    parseInspectReply,
  );
}

/** Reads one lease and its remaining time (the key already validated). */
export async function inspectKey(ctx: RedisOpContext, key: LockKey): Promise<LeaseView | null> {
  const reply = await readKey(ctx, key);
  return reply.code === ReplyCode.Ok
    ? decodeLease(key, reply.value, reply.ttlMs, reply.nowMs)
    : null;
}

/** The key's lock-delay in force, when it has no lease (the key already validated). */
export async function inspectDelayKey(
  ctx: RedisOpContext,
  key: LockKey,
): Promise<LockDelayView | null> {
  const reply = await readKey(ctx, key);
  return reply.code === ReplyCode.LockDelay
    ? {
        resource: key.resource,
        businessKey: key.businessKey,
        lockDelayUntil: reply.untilMs,
        remainingMs: reply.waitMs,
        tier: "redis",
      }
    : null;
}
