import { z } from "zod";
import type { Holder, LeaseView, Tier } from "../types.js";
import {
  businessKeySchema,
  cursorSchema,
  fenceSchema,
  holderIdSchema,
  leaseMsSchema,
  lockIdSchema,
  pageLimitSchema,
  resourceNameSchema,
  tierSchema,
  waitIdSchema,
  waitMsSchema,
} from "./common.js";

const lockKey = { resource: resourceNameSchema, businessKey: businessKeySchema };

/**
 * lock.acquire: `leaseMs` defaults to the resource's `defaultLeaseMs`; `waitMs` 0 (the
 * default) answers at once, more waits server-side and fails with LOCK_TIMEOUT when it
 * runs out. The holder's clientId comes from the connection, never from the input.
 */
export const acquireInputSchema = z.object({
  ...lockKey,
  ownerId: holderIdSchema,
  leaseMs: leaseMsSchema.optional(),
  waitMs: waitMsSchema.optional(),
  waitId: waitIdSchema.optional(),
});

/**
 * lock.release: the grant's lockId must match; `tier` is the tier that granted it (the
 * lock carries it), because that tier must release it.
 */
export const releaseInputSchema = z.object({ ...lockKey, lockId: lockIdSchema, tier: tierSchema });

/** lock.extend: a new remaining lease from now, in ms (at most the resource's maxLeaseMs). */
export const extendInputSchema = z.object({
  ...lockKey,
  lockId: lockIdSchema,
  tier: tierSchema,
  leaseMs: leaseMsSchema.optional(),
});

/** lock.inspect and holder.waiters: one key. */
export const lockKeyInputSchema = z.object(lockKey);

/** lock.cancelWait: withdraws a blocking acquire by the id it was sent with. */
export const cancelWaitInputSchema = z.object({ waitId: waitIdSchema });

/** lock.reportStaleFence: an SDK fence guard refused a write from an older holder. */
export const staleFenceReportSchema = z.object({
  ...lockKey,
  fence: fenceSchema,
  currentFence: fenceSchema.optional(),
  lockId: lockIdSchema.optional(),
  ownerId: holderIdSchema.optional(),
  /** Where the guard ran, e.g. `mysql:orders` or `redis:stock`. */
  target: z
    .string()
    .max(200)
    // eslint-disable-next-line no-control-regex
    .regex(/^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/, "must not contain control characters")
    .optional(),
});

/** holder.list: live holders of a resource (optionally one key), paged. */
export const holderListInputSchema = z.object({
  resource: resourceNameSchema,
  businessKey: businessKeySchema.optional(),
  /** Which tier's leases to list (default: the current tier); during a degrade Redis
   * leases may still be live while grants go to MySQL. */
  tier: tierSchema.optional(),
  cursor: cursorSchema.optional(),
  limit: pageLimitSchema.optional(),
});

/** holder.forceRelease: an operator removes a lease and says why. */
export const forceReleaseInputSchema = z.object({
  ...lockKey,
  lockId: lockIdSchema.optional(),
  reason: z.string().trim().min(3, "say why (3+ characters)").max(500),
});

/** Parsed inputs, as the use cases take them. */
export type AcquireInput = z.output<typeof acquireInputSchema>;
export type ReleaseInput = z.output<typeof releaseInputSchema>;
export type ExtendInput = z.output<typeof extendInputSchema>;
export type LockKeyInput = z.output<typeof lockKeyInputSchema>;
export type CancelWaitInput = z.output<typeof cancelWaitInputSchema>;
export type StaleFenceReport = z.output<typeof staleFenceReportSchema>;

/** Every lock reply says which tier this server grants on now. */
interface TierNow {
  readonly currentTier: Tier;
}

/** lock.acquire, granted. `maxRenewals` is the resource's (null: unlimited). */
export interface AcquireGrantedReply extends TierNow {
  readonly granted: true;
  readonly lockId: string;
  readonly fence: string | null;
  readonly tier: Tier;
  readonly expiresAt: number;
  readonly ttlMs: number;
  readonly reentry: number;
  readonly maxRenewals: number | null;
}

/** lock.acquire, refused: who holds the key and for how long still. */
export interface AcquireRefusedReply extends TierNow {
  readonly granted: false;
  readonly holder: Holder;
  readonly ttlMs: number;
  readonly tier: Tier;
}

export type AcquireReply = AcquireGrantedReply | AcquireRefusedReply;

/** lock.release: `released` is true when the key is free (false: re-entries remain). */
export interface ReleaseReply extends TierNow {
  readonly released: boolean;
  readonly reentry: number;
}

/** lock.extend: the lease as renewed. */
export type ExtendReply = LeaseView & TierNow;

/** lock.inspect: the live lease of a key in any reachable tier, or null. */
export interface InspectReply extends TierNow {
  readonly lease: LeaseView | null;
  /**
   * With no lease: when the key's lock-delay ends (ms since the Unix epoch, store clock),
   * while one is in force (docs/decisions/0175); null or absent otherwise.
   */
  readonly lockDelayUntil?: number | null;
}

/** lock.cancelWait: false when there was no such wait (ended, unknown, or not yours). */
export interface CancelWaitReply extends TierNow {
  readonly cancelled: boolean;
}

/** lock.reportStaleFence. */
export interface StaleFenceReply extends TierNow {
  readonly recorded: true;
}
