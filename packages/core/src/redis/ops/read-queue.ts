import { validateLockKey } from "@warden/contract";
import {
  validateQueueLimit,
  type QueuePlace,
  type ReadQueueInput,
} from "../../store/queue-place.js";
import { readQueue } from "../generated/lua-scripts.js";
import { callScript } from "../redis-connection.js";
import { ReplyCode, UnexpectedReplyError, int, replyParts, str } from "../reply-code.js";
import type { RedisOpContext } from "./redis-op-context.js";

const SCRIPT = "readQueue-2";

/** Checks a raw `readQueue-2.lua` reply: `{1, nowMs, waiterId, arrival, deadline, …}`. */
export function parseReadQueueReply(reply: unknown): QueuePlace[] {
  const [, nowRaw, ...rest] = replyParts(SCRIPT, reply, [ReplyCode.Ok]);
  const nowMs = int(SCRIPT, reply, nowRaw);
  if (rest.length % 3 !== 0) throw new UnexpectedReplyError(SCRIPT, reply);
  const places: QueuePlace[] = [];
  for (let index = 0; index < rest.length; index += 3) {
    const deadline = int(SCRIPT, reply, rest[index + 2]);
    places.push({
      waiterId: str(SCRIPT, reply, rest[index]),
      arrival: int(SCRIPT, reply, rest[index + 1]),
      deadline,
      ttlMs: deadline - nowMs,
    });
  }
  return places;
}

/** LockStore.readQueue on Redis: the key's live places in arrival order, one read-only script. */
export async function readQueueOp(
  ctx: RedisOpContext,
  input: ReadQueueInput,
): Promise<QueuePlace[]> {
  const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
  const limit = validateQueueLimit(input.limit);
  return ctx.caller.call(
    "inspect",
    "",
    () => callScript(ctx.client, readQueue, ctx.keys.queue(key), [limit]),
    parseReadQueueReply,
  );
}
