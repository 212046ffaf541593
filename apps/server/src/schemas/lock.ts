import { z } from "zod";
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
  waitMsSchema,
} from "./common.js";

const lockKey = { resource: resourceNameSchema, businessKey: businessKeySchema };

/** A client-chosen id for one blocking acquire, so that `lock.cancelWait` can withdraw it. */
export const waitIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{8,64}$/, "must be 8..64 base64url characters");

/**
 * lock.acquire: `leaseMs` defaults to the resource's `defaultLeaseMs`; `waitMs` 0 (the
 * default) answers at once, more waits server-side and fails with TIMEOUT when it runs out.
 * The holder's clientId comes from the connection, never from the input.
 */
export const acquireInputSchema = z.object({
  ...lockKey,
  ownerId: holderIdSchema,
  leaseMs: leaseMsSchema.optional(),
  waitMs: waitMsSchema.optional(),
  waitId: waitIdSchema.optional(),
});

/** lock.release: the grant's lockId must match (S3). */
export const releaseInputSchema = z.object({ ...lockKey, lockId: lockIdSchema });

/** lock.extend: a new remaining lease from now, in ms (at most the resource's maxLeaseMs). */
export const extendInputSchema = z.object({
  ...lockKey,
  lockId: lockIdSchema,
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
  target: z.string().max(200).optional(),
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
