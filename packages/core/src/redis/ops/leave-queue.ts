import { validateLockKey } from "@warden/contract";
import { validateWaiterId } from "../../store/fair-wait.js";
import type { LeaveQueueInput } from "../../store/lock-store.js";
import { leaveQueue } from "../generated/lua-scripts.js";
import { callScript } from "../redis-connection.js";
import { ReplyCode, int, replyParts } from "../reply-code.js";
import type { RedisOpContext } from "./redis-op-context.js";

const SCRIPT = "leaveQueue-2";

/** Checks a raw `leaveQueue-2.lua` reply: whether the waiter had a place. */
export function parseLeaveQueueReply(reply: unknown): boolean {
  const [code, removed] = replyParts(SCRIPT, reply, [ReplyCode.Ok, ReplyCode.Refused]);
  if (removed !== undefined) int(SCRIPT, reply, removed);
  return code === ReplyCode.Ok;
}

/** LockStore.leaveQueue on Redis: gives up a fair waiter's place. */
export async function leaveQueueOp(ctx: RedisOpContext, input: LeaveQueueInput): Promise<boolean> {
  const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
  const waiterId = validateWaiterId(input.waiterId);
  return ctx.caller.call(
    "leave-queue",
    waiterId,
    () => callScript(ctx.client, leaveQueue, ctx.keys.queue(key), [waiterId]),
    parseLeaveQueueReply,
  );
}
