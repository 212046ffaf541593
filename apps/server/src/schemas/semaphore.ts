import {
  businessKeySchema,
  holderIdSchema,
  leaseMsSchema,
  lockIdSchema,
  resourceNameSchema,
  tierSchema,
  waitIdSchema,
  waitMsSchema,
} from "@warden/contract/wire";
import { z } from "zod";
import { MAX_SEMAPHORE_PERMITS } from "./resource-policy.js";

type Tier = z.infer<typeof tierSchema>;
interface Holder {
  readonly clientId: string;
  readonly ownerId: string;
}

const semaphoreKey = { resource: resourceNameSchema, businessKey: businessKeySchema };

/**
 * semaphore.acquire (docs/decisions/0161): `permits` (default 1) of the resource's total,
 * `leaseMs` defaults to the resource's `defaultLeaseMs`; `waitMs` 0 (the default) answers
 * at once, more retries server-side until granted or LOCK_TIMEOUT. The holder's clientId
 * comes from the connection.
 */
export const semaphoreAcquireInputSchema = z.object({
  ...semaphoreKey,
  ownerId: holderIdSchema,
  permits: z
    .number()
    .int("permits must be an integer")
    .min(1, "permits must be greater than 0")
    .max(MAX_SEMAPHORE_PERMITS, `permits must be at most ${MAX_SEMAPHORE_PERMITS}`)
    .optional(),
  leaseMs: leaseMsSchema.optional(),
  waitMs: waitMsSchema.optional(),
  /** Names a waiting acquire so `lock.cancelWait` (any instance) can withdraw it. */
  waitId: waitIdSchema.optional(),
});
export type SemaphoreAcquireInput = z.infer<typeof semaphoreAcquireInputSchema>;

/** semaphore.release: the permit's lockId and the tier that granted it. */
export const semaphoreReleaseInputSchema = z.object({
  ...semaphoreKey,
  lockId: lockIdSchema,
  tier: tierSchema,
});
export type SemaphoreReleaseInput = z.infer<typeof semaphoreReleaseInputSchema>;

/** semaphore.extend: a new remaining lease from now (default the resource's defaultLeaseMs). */
export const semaphoreExtendInputSchema = semaphoreReleaseInputSchema.extend({
  leaseMs: leaseMsSchema.optional(),
});
export type SemaphoreExtendInput = z.infer<typeof semaphoreExtendInputSchema>;

/** semaphore.inspect: one key. */
export const semaphoreKeyInputSchema = z.object(semaphoreKey);
export type SemaphoreKeyInput = z.infer<typeof semaphoreKeyInputSchema>;

/** One live permit grant. */
export interface PermitInfo {
  readonly lockId: string;
  /** Decimal string; null only on the local tier. */
  readonly fence: string | null;
  readonly holder: Holder;
  readonly permits: number;
  readonly grantedAt: number;
  readonly renewals: number;
  readonly expiresAt: number;
  readonly ttlMs: number;
  readonly tier: Tier;
}

/** semaphore.acquire's answer: a grant, or (waitMs 0) a refusal saying how full the key is. */
export type SemaphoreAcquireReply =
  | (PermitInfo & {
      readonly granted: true;
      /** Permits of the key in use right after this grant (this one included). */
      readonly inUse: number;
      readonly totalPermits: number;
      readonly maxRenewals: number | null;
      readonly currentTier: Tier;
    })
  | {
      readonly granted: false;
      readonly inUse: number;
      readonly totalPermits: number;
      /** When enough permits lapse if nobody releases (0: unknown, e.g. a fair queue ahead). */
      readonly retryAfterMs: number;
      readonly queued: boolean;
      readonly tier: Tier;
      readonly currentTier: Tier;
    };

/** semaphore.release's answer: the permit as it was. */
export interface SemaphoreReleaseReply {
  readonly released: true;
  readonly permit: PermitInfo;
  readonly currentTier: Tier;
}

/** semaphore.extend's answer: the permit as extended. */
export interface SemaphoreExtendReply {
  readonly permit: PermitInfo;
  readonly currentTier: Tier;
}

/** semaphore.inspect's answer: live permits of the key on every tier that answered. */
export interface SemaphoreInspectReply {
  readonly holders: PermitInfo[];
  readonly inUse: number;
  readonly totalPermits: number;
  readonly currentTier: Tier;
}
