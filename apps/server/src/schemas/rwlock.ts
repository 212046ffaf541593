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

type Tier = z.infer<typeof tierSchema>;
interface Holder {
  readonly clientId: string;
  readonly ownerId: string;
}

/** The two modes of a read-write lock grant. */
export type RwLockMode = "read" | "write";

const rwKey = { resource: resourceNameSchema, businessKey: businessKeySchema };

/**
 * rwlock.acquireRead / rwlock.acquireWrite (docs/decisions/0166): `leaseMs` defaults to the
 * resource's `defaultLeaseMs`; `waitMs` 0 (the default) answers at once, more retries
 * server-side until granted or LOCK_TIMEOUT. The holder's clientId comes from the
 * connection; writer preference is the resource's.
 */
export const rwAcquireInputSchema = z.object({
  ...rwKey,
  ownerId: holderIdSchema,
  leaseMs: leaseMsSchema.optional(),
  waitMs: waitMsSchema.optional(),
  /** Names a waiting acquire so `lock.cancelWait` (any instance) can withdraw it. */
  waitId: waitIdSchema.optional(),
});
export type RwAcquireInput = z.infer<typeof rwAcquireInputSchema>;

/** rwlock.release: the grant's lockId and the tier that granted it. */
export const rwReleaseInputSchema = z.object({
  ...rwKey,
  lockId: lockIdSchema,
  tier: tierSchema,
});
export type RwReleaseInput = z.infer<typeof rwReleaseInputSchema>;

/** rwlock.extend: a new remaining lease from now (default the resource's defaultLeaseMs). */
export const rwExtendInputSchema = rwReleaseInputSchema.extend({
  leaseMs: leaseMsSchema.optional(),
});
export type RwExtendInput = z.infer<typeof rwExtendInputSchema>;

/** rwlock.inspect: one key. */
export const rwKeyInputSchema = z.object(rwKey);
export type RwKeyInput = z.infer<typeof rwKeyInputSchema>;

/** One live read or write grant. */
export interface RwGrantInfo {
  readonly lockId: string;
  readonly mode: RwLockMode;
  /**
   * Decimal string; null only on the local tier. Readers of one read generation share it; a
   * writer's is larger than every fence granted on the key before it.
   */
  readonly fence: string | null;
  readonly holder: Holder;
  readonly grantedAt: number;
  readonly renewals: number;
  readonly expiresAt: number;
  readonly ttlMs: number;
  readonly tier: Tier;
}

/** Why an acquire was refused (waitMs 0): a live writer, live readers, or a waiting writer. */
export type RwRefusalReason = "write-held" | "read-held" | "writer-waiting";

/** rwlock.acquireRead / acquireWrite's answer: a grant, or (waitMs 0) why not. */
export type RwAcquireReply =
  | (RwGrantInfo & {
      readonly granted: true;
      /** The same holder entered again in the same mode (same lockId and fence). */
      readonly reentered: boolean;
      readonly maxRenewals: number | null;
      readonly currentTier: Tier;
    })
  | {
      readonly granted: false;
      readonly mode: RwLockMode;
      readonly reason: RwRefusalReason;
      /** Who blocks it (the writer, or the readers); empty for `writer-waiting`. */
      readonly holders: Holder[];
      /** When a retry can first succeed if nobody releases (a hint). */
      readonly retryAfterMs: number;
      readonly tier: Tier;
      readonly currentTier: Tier;
    };

/** rwlock.release's answer. */
export interface RwReleaseReply {
  /** True once the grant is gone (a re-entered grant needs one release per entry). */
  readonly released: boolean;
  readonly mode: RwLockMode;
  readonly fence: string | null;
  readonly currentTier: Tier;
}

/** rwlock.extend's answer: the grant as extended. */
export interface RwExtendReply {
  readonly grant: RwGrantInfo;
  readonly currentTier: Tier;
}

/** rwlock.inspect's answer: the key's writer, readers and waiting writers. */
export interface RwInspectReply {
  readonly writer: RwGrantInfo | null;
  /** Oldest grant first. */
  readonly readers: RwGrantInfo[];
  /** The fence the current read generation shares, once a read was granted since the last write. */
  readonly readFence: string | null;
  /** Writers whose intent currently stops new readers (writer preference). */
  readonly waitingWriters: number;
  readonly writerPreference: boolean;
  /** The tier that answered; null when nothing is live anywhere. */
  readonly tier: Tier | null;
  readonly currentTier: Tier;
}
