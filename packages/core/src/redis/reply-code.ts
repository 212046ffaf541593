/**
 * The first element of every Warden Lua script's reply (the scripts' headers in `lua/`
 * say which script returns which). One enum for all scripts, so a code means the same
 * thing wherever it appears.
 */
export enum ReplyCode {
  /** acquireLock: another holder has the key. forceRelease/inspectLock: no lease (or not that lockId's). */
  Refused = 0,
  /** Done: granted, released, extended, removed or read. */
  Ok = 1,
  /** leaseMs is not an integer in 1..maxLeaseMs. */
  BadLease = -1,
  /** acquireLock: the node has no epoch bound to its replication id (new or promoted master). */
  NotBound = -2,
  /** acquireLock: the node's epoch is below the caller's floor. */
  EpochBelowFloor = -3,
  /** acquireLock: the fence counter ran out in this epoch. */
  CounterExhausted = -4,
  /** releaseLock/extendLock: no lease; it expired or was released. */
  NoLease = -5,
  /** releaseLock/extendLock: the key is held under another lockId. */
  OtherHolder = -6,
  /** acquireLock, fair: the key is free but a live waiter queued before the caller. */
  Queued = -7,
  /** acquireLock/acquirePlain/inspectLock: no lease, but a lock-delay is in force. */
  LockDelay = -8,
}

/** A reply that does not have the shape its script's header promises. */
export class UnexpectedReplyError extends Error {
  override readonly name = "UnexpectedReplyError";

  constructor(script: string, reply: unknown) {
    super(`unexpected reply from ${script}: ${JSON.stringify(reply)}`);
  }
}

/** The reply as an array whose first element is a known code, or an UnexpectedReplyError. */
export function replyParts(
  script: string,
  reply: unknown,
  allowed: readonly ReplyCode[],
): [ReplyCode, ...unknown[]] {
  if (!Array.isArray(reply) || !allowed.includes(reply[0] as ReplyCode)) {
    throw new UnexpectedReplyError(script, reply);
  }
  return reply as [ReplyCode, ...unknown[]];
}

/**
 * The reply as a non-empty array (every Warden script answers at least one element), or an
 * UnexpectedReplyError; for scripts whose elements the caller checks one by one.
 */
export function replyArray(script: string, reply: unknown): unknown[] {
  if (!Array.isArray(reply) || reply.length === 0) throw new UnexpectedReplyError(script, reply);
  return reply as unknown[];
}

/** A reply element that must be an integer (Redis turns Lua numbers into integers). */
export function int(script: string, reply: unknown, value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw new UnexpectedReplyError(script, reply);
  }
  return value;
}

/** A reply element that must be a string. */
export function str(script: string, reply: unknown, value: unknown): string {
  if (typeof value !== "string") throw new UnexpectedReplyError(script, reply);
  return value;
}
