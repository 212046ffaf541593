import {
  FENCE_LAYOUT,
  InvalidArgumentError,
  LIMITS,
  LockUnavailableError,
  ReplicationTimeoutError,
  newLockId,
  validateHolder,
  validateLeaseMs,
  validateLockKey,
  validateWaitReplicas,
  type AcquireResult,
  type Holder,
  type LockKey,
} from "@warden/contract";
import { QUEUED_HOLDER, validateFairWait } from "../../store/fair-wait.js";
import {
  LOCK_DELAY_HOLDER,
  validateLockDelayMs,
  type AcquireInput,
} from "../../store/lock-store.js";
import { withTimeout } from "../../store/with-timeout.js";
import { acquireLock, acquirePlain, type LuaScript } from "../generated/lua-scripts.js";
import { rebindNodeOf } from "../redis-store-base.js";
import { ScriptBatcher } from "../script-batch.js";
import { ReplyCode, UnexpectedReplyError, int, replyParts, str } from "../reply-code.js";
import { removeGrant } from "./force-release.js";
import type { RedisOpContext } from "./redis-op-context.js";
import { sendRelease } from "./release.js";

/** The reply of `acquireLock-7.lua` and `acquirePlain-5.lua`, as one type. */
export type AcquireReply =
  | {
      readonly code: ReplyCode.Ok;
      readonly lockId: string;
      readonly fence: number;
      readonly reentry: number;
      readonly ttlMs: number;
      readonly nowMs: number;
      readonly grantedAt: number;
      readonly renewals: number;
    }
  | { readonly code: ReplyCode.Refused; readonly holder: Holder; readonly ttlMs: number }
  | { readonly code: ReplyCode.BadLease | ReplyCode.CounterExhausted | ReplyCode.Queued }
  | { readonly code: ReplyCode.NotBound; readonly replid: string }
  | { readonly code: ReplyCode.EpochBelowFloor; readonly epoch: number }
  | { readonly code: ReplyCode.LockDelay; readonly waitMs: number };

const SCRIPT = "acquireLock-7";
const PLAIN = "acquirePlain-5";

/** Checks and types a raw `acquireLock-7.lua` reply. */
export function parseAcquireReply(reply: unknown): AcquireReply {
  const parts = replyParts(SCRIPT, reply, [
    ReplyCode.Ok,
    ReplyCode.Refused,
    ReplyCode.BadLease,
    ReplyCode.NotBound,
    ReplyCode.EpochBelowFloor,
    ReplyCode.CounterExhausted,
    ReplyCode.Queued,
    ReplyCode.LockDelay,
  ]);
  const code = parts[0];
  const at = (i: number) => int(SCRIPT, reply, parts[i]);
  switch (code) {
    case ReplyCode.Ok:
      return {
        code,
        lockId: str(SCRIPT, reply, parts[1]),
        fence: at(2),
        reentry: at(3),
        ttlMs: at(4),
        nowMs: at(5),
        grantedAt: at(6),
        renewals: at(7),
      };
    case ReplyCode.Refused:
      return {
        code,
        holder: { clientId: str(SCRIPT, reply, parts[1]), ownerId: str(SCRIPT, reply, parts[2]) },
        ttlMs: at(3),
      };
    case ReplyCode.NotBound:
      return { code, replid: str(SCRIPT, reply, parts[1]) };
    case ReplyCode.EpochBelowFloor:
      return { code, epoch: at(1) };
    case ReplyCode.LockDelay:
      return { code, waitMs: at(1) };
    case ReplyCode.BadLease:
    case ReplyCode.CounterExhausted:
    case ReplyCode.Queued:
      return { code };
    case ReplyCode.NoLease:
    case ReplyCode.OtherHolder:
      // replyParts only lets the codes above through.
      throw new UnexpectedReplyError(SCRIPT, reply);
  }
}

/**
 * Checks and types a raw `acquirePlain-5.lua` reply. A new grant's reply carries only the
 * fence and the Redis clock; the rest is what the caller sent (its lockId and leaseMs) or
 * follows from a new grant (reentry 1, granted now, no renewals).
 */
export function parsePlainAcquireReply(
  reply: unknown,
  lockId: string,
  leaseMs: number,
): AcquireReply {
  if (!Array.isArray(reply)) throw new UnexpectedReplyError(PLAIN, reply);
  const code: unknown = reply[0];
  const length = reply.length;
  if (code === ReplyCode.Ok) {
    const fence = int(PLAIN, reply, reply[1]);
    const nowMs = int(PLAIN, reply, reply[2]);
    if (length === 3) {
      return {
        code,
        lockId,
        fence,
        reentry: 1,
        ttlMs: leaseMs,
        nowMs,
        grantedAt: nowMs,
        renewals: 0,
      };
    }
    if (length !== 8) throw new UnexpectedReplyError(PLAIN, reply);
    return {
      code,
      lockId: str(PLAIN, reply, reply[3]),
      fence,
      reentry: int(PLAIN, reply, reply[4]),
      ttlMs: int(PLAIN, reply, reply[5]),
      nowMs,
      grantedAt: int(PLAIN, reply, reply[6]),
      renewals: int(PLAIN, reply, reply[7]),
    };
  }
  switch (code) {
    case ReplyCode.Refused:
      if (length !== 4) break;
      return {
        code,
        holder: { clientId: str(PLAIN, reply, reply[1]), ownerId: str(PLAIN, reply, reply[2]) },
        ttlMs: int(PLAIN, reply, reply[3]),
      };
    case ReplyCode.NotBound:
      return { code, replid: str(PLAIN, reply, reply[1]) };
    case ReplyCode.EpochBelowFloor:
      return { code, epoch: int(PLAIN, reply, reply[1]) };
    case ReplyCode.LockDelay:
      return { code, waitMs: int(PLAIN, reply, reply[1]) };
    case ReplyCode.BadLease:
    case ReplyCode.CounterExhausted:
      return { code };
  }
  throw new UnexpectedReplyError(PLAIN, reply);
}

/** LockStore.acquire on Redis: grant, re-enter or refuse in one script; fence minted there. */
export async function acquireOp(ctx: RedisOpContext, input: AcquireInput): Promise<AcquireResult> {
  const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
  const holder = validateHolder(input.holder);
  const leaseMs = validateLeaseMs(input.leaseMs);
  const waitReplicas = validateWaitReplicas(input.waitReplicas);
  const fair = validateFairWait(input.fair);
  const lockDelayMs = validateLockDelayMs(input.lockDelayMs);
  if (!ctx.binder.ready) await ctx.binder.ensureStarted();
  const lockId = newLockId();
  // A plain acquire ignores the key's fair queue, so it runs the lean script without the
  // queue keys and arguments (decision 0043); a fair one runs acquireLock-7. The last key
  // before last is the lock-delay shadow; without a delay the script never touches it, so
  // the lease key stands in and no key is built (decision 0175). The last is the watch mark
  // a refusal sets (decision 0206).
  const script = fair ? acquireLock : acquirePlain;
  const redisKeys: string[] = fair ? ctx.keys.forAcquire(key) : ctx.keys.forPlainAcquire(key);
  redisKeys.push(lockDelayMs > 0 ? ctx.keys.delay(key) : redisKeys[0]!, ctx.keys.watch(key));
  const timeoutMs =
    ctx.caller.timeoutFor(leaseMs) + (waitReplicas > 0 ? ctx.waitReplicasTimeoutMs : 0);
  // At most two rebinds: one for a new master, one if the counter ran out right after.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const args: (string | number)[] = [
      lockId,
      holder.clientId,
      holder.ownerId,
      leaseMs,
      ctx.binder.minEpoch,
      LIMITS.maxLeaseMs,
      FENCE_LAYOUT.counterSpan,
    ];
    if (fair) args.push(fair.heartbeatMs, fair.waiterId ?? "");
    args.push(lockDelayMs);
    let reply: AcquireReply;
    let acknowledged = 0;
    try {
      if (waitReplicas === 0) {
        // The common case inline: one promise less than a helper per acquire.
        // The acquires of one turn go in one script call where the client allows it, plain
        // ones and fair ones apart (decision 0213); each gets the reply its script gives.
        const sent = ScriptBatcher.send(
          fair ? ctx.fairAcquires : ctx.plainAcquires,
          ctx.client,
          script,
          redisKeys,
          args,
        );
        const raw = await withTimeout(sent, timeoutMs);
        reply = parseFor(script, raw, lockId, leaseMs);
      } else {
        ({ reply, acknowledged } = await sendWithWait(
          ctx,
          lockId,
          script,
          redisKeys,
          args,
          leaseMs,
          waitReplicas,
          timeoutMs,
        ));
      }
    } catch (error) {
      // A reply that does not parse may hide a grant: its outcome is unknown, like a lost one.
      // It is cleaned up on the connection it was sent on.
      const caller = waitReplicas === 0 ? ctx.caller : ctx.replicaCaller;
      throw caller.failure("acquire", key, lockId, error, leaseMs);
    }
    switch (reply.code) {
      case ReplyCode.Ok:
        if (acknowledged < waitReplicas) {
          await undoUnacknowledged(ctx, key, reply, acknowledged, waitReplicas);
        }
        return granted(ctx, key, holder, leaseMs, reply, lockDelayMs);
      case ReplyCode.Refused:
        ctx.events.lock(key, { type: "refusal", holder, heldBy: reply.holder });
        return { granted: false, holder: reply.holder, ttlMs: reply.ttlMs, tier: "redis" };
      case ReplyCode.Queued:
        ctx.events.lock(key, { type: "refusal", holder, heldBy: QUEUED_HOLDER });
        return { granted: false, holder: QUEUED_HOLDER, ttlMs: 0, tier: "redis" };
      case ReplyCode.LockDelay:
        ctx.events.lock(key, { type: "refusal", holder, heldBy: LOCK_DELAY_HOLDER });
        return { granted: false, holder: LOCK_DELAY_HOLDER, ttlMs: reply.waitMs, tier: "redis" };
      case ReplyCode.BadLease:
        throw new InvalidArgumentError("leaseMs", `must be 1..${LIMITS.maxLeaseMs}`);
      case ReplyCode.NotBound:
        await rebind(ctx, key, "new master");
        break;
      case ReplyCode.EpochBelowFloor:
        await rebind(ctx, key, "epoch below floor");
        break;
      case ReplyCode.CounterExhausted:
        await rebind(ctx, key, "counter exhausted");
        break;
    }
  }
  throw new LockUnavailableError("Redis node could not be bound to a fencing epoch", {
    reason: "fencing-epoch",
  });
}

/** An acquire and its WAIT in one pipeline, so WAIT runs on the node that just granted. */
async function sendWithWait(
  ctx: RedisOpContext,
  lockId: string,
  script: LuaScript,
  redisKeys: readonly string[],
  args: readonly (string | number)[],
  leaseMs: number,
  waitReplicas: number,
  timeoutMs: number,
): Promise<{ reply: AcquireReply; acknowledged: number }> {
  // On their own connection, so that their WAIT holds up no other call (decision 0228); the
  // turn's acquires that wait alike go together, one WAIT after their batch (decision 0227),
  // plain ones and fair ones apart.
  const sent = ScriptBatcher.sendThenWait(
    script === acquirePlain ? ctx.plainAcquiresWaiting : ctx.fairAcquiresWaiting,
    ctx.replicaClient,
    script,
    redisKeys,
    args,
    waitReplicas,
    ctx.waitReplicasTimeoutMs,
  );
  const { reply, acknowledged } = await withTimeout(sent, timeoutMs);
  return { reply: parseFor(script, reply, lockId, leaseMs), acknowledged };
}

function parseFor(script: LuaScript, raw: unknown, lockId: string, leaseMs: number): AcquireReply {
  return script === acquirePlain
    ? parsePlainAcquireReply(raw, lockId, leaseMs)
    : parseAcquireReply(raw);
}

/**
 * A grant (or re-entry) too few replicas acknowledged: a first grant is removed, an
 * unacknowledged re-entry only gives its entry back; then ReplicationTimeoutError.
 */
async function undoUnacknowledged(
  ctx: RedisOpContext,
  key: LockKey,
  reply: Extract<AcquireReply, { code: ReplyCode.Ok }>,
  acknowledged: number,
  waitReplicas: number,
): Promise<never> {
  const { lockId, reentry } = reply;
  if (reentry > 1) await sendRelease(ctx, key, lockId);
  else await removeGrant(ctx, key, lockId, ctx.commandTimeoutMs);
  ctx.events.lock(key, {
    type: "replication-timeout",
    lockId,
    required: waitReplicas,
    acknowledged,
    entryOnly: reentry > 1,
  });
  throw new ReplicationTimeoutError(waitReplicas, acknowledged);
}

function granted(
  ctx: RedisOpContext,
  key: LockKey,
  holder: Holder,
  leaseMs: number,
  reply: Extract<AcquireReply, { code: ReplyCode.Ok }>,
  lockDelayMs: number,
): AcquireResult {
  const { lockId, reentry, ttlMs, nowMs, grantedAt, renewals } = reply;
  const fence = String(reply.fence);
  ctx.events.lock(key, {
    type: "grant",
    lockId,
    fence,
    holder,
    leaseMs,
    reentry,
    grantedAt,
    renewals,
    ...(lockDelayMs > 0 ? { lockDelayMs } : {}),
  });
  return {
    granted: true,
    reentered: reentry > 1,
    resource: key.resource,
    businessKey: key.businessKey,
    lockId,
    fence,
    holder: { clientId: holder.clientId, ownerId: holder.ownerId },
    reentry,
    grantedAt,
    renewals,
    ttlMs,
    expiresAt: nowMs + ttlMs,
    tier: "redis",
  };
}

/** Binds a fresh epoch to the node that holds `key` (see {@link rebindNodeOf}). */
function rebind(ctx: RedisOpContext, key: LockKey, reason: string): Promise<void> {
  return rebindNodeOf(ctx.client, ctx.keys, ctx.binder, key, reason);
}
