import { z } from "zod";
import {
  LOCK_UNAVAILABLE_REASONS,
  type ErrorCode,
  type ErrorDetailsByCode,
  type Holder,
  type LeaseView,
} from "@warden/contract";
import {
  acquireInputSchema,
  businessKeySchema,
  cancelWaitInputSchema,
  extendInputSchema,
  fenceSchema,
  lockIdSchema,
  releaseInputSchema,
  resourceNameSchema,
  tierSchema,
  waitIdSchema,
  type AcquireGrantedReply,
  type AcquireRefusedReply,
  type CancelWaitReply,
  type ExtendReply,
  type InspectReply,
  type ReleaseReply,
} from "@warden/contract/wire";
import type { WaiterView } from "../locks/wait-queues.js";
import {
  semaphoreAcquireInputSchema,
  semaphoreExtendInputSchema,
  semaphoreReleaseInputSchema,
  type PermitInfo,
  type SemaphoreAcquireReply,
  type SemaphoreExtendReply,
  type SemaphoreInspectReply,
  type SemaphoreReleaseReply,
} from "../schemas/semaphore.js";
import {
  rwAcquireInputSchema,
  rwExtendInputSchema,
  rwReleaseInputSchema,
  type RwAcquireReply,
  type RwExtendReply,
  type RwGrantInfo,
  type RwInspectReply,
  type RwReleaseReply,
} from "../schemas/rwlock.js";

/*
 * The HTTP/JSON lock API's bodies and replies as zod schemas: the bodies are the wire
 * contract's input schemas (`@warden/contract/wire`) without `resource`, which the path
 * names; the replies mirror the contract's reply types, checked against them below so
 * that neither can change alone. The OpenAPI document is generated from these
 * (rest/openapi.ts). Bodies are strict: an unknown field (a typo such as `lease_ms`) is
 * an INVALID_ARGUMENT instead of being silently ignored
 * (docs/decisions/0120-http-json-lock-api.md).
 */

/** POST /v1/locks/{resource}/acquire */
export const acquireBodySchema = acquireInputSchema.omit({ resource: true }).strict();
/** POST /v1/locks/{resource}/try: an acquire that never waits. */
export const tryBodySchema = acquireInputSchema
  .omit({ resource: true, waitMs: true, waitId: true })
  .strict();
/** POST /v1/locks/{resource}/release */
export const releaseBodySchema = releaseInputSchema.omit({ resource: true }).strict();
/** POST /v1/locks/{resource}/extend */
export const extendBodySchema = extendInputSchema.omit({ resource: true }).strict();
/** DELETE /v1/waits/{waitId}: the path's waitId, checked like the contract's. */
export const cancelWaitParamsSchema = cancelWaitInputSchema;

export const holderSchema = z.object({ clientId: z.string(), ownerId: z.string() });

/** A live lease as the stores report it. */
export const leaseViewSchema = z.object({
  resource: z.string(),
  businessKey: z.string(),
  lockId: lockIdSchema,
  fence: fenceSchema.nullable(),
  holder: holderSchema,
  reentry: z.number().int(),
  grantedAt: z.number().int(),
  renewals: z.number().int(),
  expiresAt: z.number().int(),
  ttlMs: z.number().int(),
  tier: tierSchema,
});

export const acquireGrantedSchema = z.object({
  granted: z.literal(true),
  lockId: lockIdSchema,
  fence: fenceSchema.nullable(),
  tier: tierSchema,
  expiresAt: z.number().int(),
  ttlMs: z.number().int(),
  reentry: z.number().int(),
  maxRenewals: z.number().int().nullable(),
  currentTier: tierSchema,
});

export const acquireRefusedSchema = z.object({
  granted: z.literal(false),
  holder: holderSchema,
  ttlMs: z.number().int(),
  tier: tierSchema,
  currentTier: tierSchema,
});

export const acquireReplySchema = z.discriminatedUnion("granted", [
  acquireGrantedSchema,
  acquireRefusedSchema,
]);

export const releaseReplySchema = z.object({
  released: z.boolean(),
  reentry: z.number().int(),
  currentTier: tierSchema,
});

export const extendReplySchema = leaseViewSchema.extend({ currentTier: tierSchema });

export const inspectReplySchema = z.object({
  lease: leaseViewSchema.nullable(),
  lockDelayUntil: z.number().int().nullable().optional(),
  currentTier: tierSchema,
});

export const waiterSchema = z.object({
  resource: z.string(),
  businessKey: z.string(),
  clientId: z.string(),
  ownerId: z.string(),
  position: z.number().int(),
  since: z.number().int(),
  waitedMs: z.number().int(),
});

export const waitersReplySchema = z.object({
  fair: z.boolean(),
  waiters: z.array(waiterSchema),
  currentTier: tierSchema,
});

export const cancelWaitReplySchema = z.object({
  cancelled: z.boolean(),
  currentTier: tierSchema,
});

/*
 * Semaphore permits (docs/decisions/0162): the bodies are the tRPC `semaphore.*` inputs
 * without `resource`, strict like the lock bodies; the replies mirror the semaphore use
 * cases' reply types (checked below).
 */

/** POST /v1/semaphores/{resource}/acquire */
export const semaphoreAcquireBodySchema = semaphoreAcquireInputSchema
  .omit({ resource: true })
  .strict();
/** POST /v1/semaphores/{resource}/try: an acquire that never waits. */
export const semaphoreTryBodySchema = semaphoreAcquireInputSchema
  .omit({ resource: true, waitMs: true, waitId: true })
  .strict();
/** POST /v1/semaphores/{resource}/release */
export const semaphoreReleaseBodySchema = semaphoreReleaseInputSchema
  .omit({ resource: true })
  .strict();
/** POST /v1/semaphores/{resource}/extend */
export const semaphoreExtendBodySchema = semaphoreExtendInputSchema
  .omit({ resource: true })
  .strict();

/** One live permit grant. */
export const permitSchema = z.object({
  lockId: lockIdSchema,
  fence: fenceSchema.nullable(),
  holder: holderSchema,
  permits: z.number().int(),
  grantedAt: z.number().int(),
  renewals: z.number().int(),
  expiresAt: z.number().int(),
  ttlMs: z.number().int(),
  tier: tierSchema,
});

export const permitGrantedSchema = permitSchema.extend({
  granted: z.literal(true),
  inUse: z.number().int(),
  totalPermits: z.number().int(),
  maxRenewals: z.number().int().nullable(),
  currentTier: tierSchema,
});

export const permitRefusedSchema = z.object({
  granted: z.literal(false),
  inUse: z.number().int(),
  totalPermits: z.number().int(),
  retryAfterMs: z.number().int(),
  queued: z.boolean(),
  tier: tierSchema,
  currentTier: tierSchema,
});

export const semaphoreAcquireReplySchema = z.discriminatedUnion("granted", [
  permitGrantedSchema,
  permitRefusedSchema,
]);

export const semaphoreReleaseReplySchema = z.object({
  released: z.literal(true),
  permit: permitSchema,
  currentTier: tierSchema,
});

export const semaphoreExtendReplySchema = z.object({
  permit: permitSchema,
  currentTier: tierSchema,
});

export const semaphoreInspectReplySchema = z.object({
  holders: z.array(permitSchema),
  inUse: z.number().int(),
  totalPermits: z.number().int(),
  currentTier: tierSchema,
});

/*
 * Read-write locks (docs/decisions/0180): the bodies are the tRPC `rwlock.*` inputs without
 * `resource`, strict like the others; the mode is the path's (`/read`, `/write`,
 * `/try-read`, `/try-write`); the replies mirror the read-write use cases' reply types
 * (checked below).
 */

/** POST /v1/rwlocks/{resource}/read and /write */
export const rwAcquireBodySchema = rwAcquireInputSchema.omit({ resource: true }).strict();
/** POST /v1/rwlocks/{resource}/try-read and /try-write: an acquire that never waits. */
export const rwTryBodySchema = rwAcquireInputSchema
  .omit({ resource: true, waitMs: true, waitId: true })
  .strict();
/** POST /v1/rwlocks/{resource}/release */
export const rwReleaseBodySchema = rwReleaseInputSchema.omit({ resource: true }).strict();
/** POST /v1/rwlocks/{resource}/extend */
export const rwExtendBodySchema = rwExtendInputSchema.omit({ resource: true }).strict();

const rwModeSchema = z.enum(["read", "write"]);

/** One live read or write grant. */
export const rwGrantSchema = z.object({
  lockId: lockIdSchema,
  mode: rwModeSchema,
  fence: fenceSchema.nullable(),
  holder: holderSchema,
  grantedAt: z.number().int(),
  renewals: z.number().int(),
  expiresAt: z.number().int(),
  ttlMs: z.number().int(),
  tier: tierSchema,
});

export const rwGrantedSchema = rwGrantSchema.extend({
  granted: z.literal(true),
  reentered: z.boolean(),
  maxRenewals: z.number().int().nullable(),
  currentTier: tierSchema,
});

export const rwRefusedSchema = z.object({
  granted: z.literal(false),
  mode: rwModeSchema,
  reason: z.enum(["write-held", "read-held", "writer-waiting"]),
  holders: z.array(holderSchema),
  retryAfterMs: z.number().int(),
  tier: tierSchema,
  currentTier: tierSchema,
});

export const rwAcquireReplySchema = z.discriminatedUnion("granted", [
  rwGrantedSchema,
  rwRefusedSchema,
]);

export const rwReleaseReplySchema = z.object({
  released: z.boolean(),
  mode: rwModeSchema,
  fence: fenceSchema.nullable(),
  currentTier: tierSchema,
});

export const rwExtendReplySchema = z.object({
  grant: rwGrantSchema,
  currentTier: tierSchema,
});

export const rwInspectReplySchema = z.object({
  writer: rwGrantSchema.nullable(),
  readers: z.array(rwGrantSchema),
  readFence: fenceSchema.nullable(),
  waitingWriters: z.number().int(),
  writerPreference: z.boolean(),
  tier: tierSchema.nullable(),
  currentTier: tierSchema,
});

/** Codes of this API's own, outside the contract: no such path, wrong method, a server fault. */
export const REST_ONLY_CODES = ["NOT_FOUND", "METHOD_NOT_ALLOWED", "INTERNAL"] as const;
export type RestOnlyCode = (typeof REST_ONLY_CODES)[number];

const none = z.object({}).strict();

/** Each code's details, as `ErrorDetailsByCode` in @warden/contract (checked below). */
const detailsByCode = {
  INVALID_ARGUMENT: z.object({ field: z.string(), reason: z.string() }),
  UNKNOWN_RESOURCE: z.object({ resource: z.string() }),
  NOT_HOLDER: z.object({ lockId: z.string(), reason: z.enum(["expired", "other-holder"]) }),
  LOCK_TIMEOUT: z.object({ waitMs: z.number().int() }),
  LOCK_UNAVAILABLE: z.object({
    retryAfterMs: z.number().nullable(),
    reason: z.enum(LOCK_UNAVAILABLE_REASONS),
  }),
  LEASE_LOST: z.object({ lockId: z.string() }),
  OUTCOME_UNKNOWN: z.object({
    lockId: z.string().nullable(),
    operation: z.enum(["acquire", "release", "extend"]),
  }),
  REPLICATION_TIMEOUT: z.object({ required: z.number().int(), acknowledged: z.number().int() }),
  UNAUTHORIZED: none,
  STALE_FENCE: z.object({ fence: z.string(), currentFence: z.string() }),
  FORBIDDEN: none,
  QUOTA_EXCEEDED: z.object({ retryAfterMs: z.number() }),
  CONFLICT: none,
  LOGIN_THROTTLED: z.object({ retryAfterMs: z.number() }),
  WAIT_CANCELLED: z.object({ waitId: z.string().nullable() }),
} satisfies Record<ErrorCode, z.ZodType>;

function errorOf<C extends string>(code: C, details: z.ZodType) {
  return z.object({ code: z.literal(code), message: z.string(), details });
}

/** `{ error: { code, message, details } }`: the contract's `toWire` form, one variant per code. */
export const errorReplySchema = z.object({
  error: z.discriminatedUnion("code", [
    ...(Object.keys(detailsByCode) as ErrorCode[]).map((code) =>
      errorOf(code, detailsByCode[code]),
    ),
    ...REST_ONLY_CODES.map((code) => errorOf(code, none)),
  ] as unknown as readonly [
    ReturnType<typeof errorOf<string>>,
    ...ReturnType<typeof errorOf<string>>[],
  ]),
});

/** Schemas the path templates use for their parameters. */
export const paramSchemas = {
  resource: resourceNameSchema,
  businessKey: businessKeySchema,
  waitId: waitIdSchema,
} as const;

// Compile-time checks: each reply schema and the contract's type accept each other.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
function same<T extends true>(): T | undefined {
  return undefined;
}
same<Same<z.output<typeof holderSchema>, Holder>>();
same<Same<z.output<typeof leaseViewSchema>, LeaseView>>();
same<Same<z.output<typeof acquireGrantedSchema>, AcquireGrantedReply>>();
same<Same<z.output<typeof acquireRefusedSchema>, AcquireRefusedReply>>();
same<Same<z.output<typeof releaseReplySchema>, ReleaseReply>>();
same<Same<z.output<typeof extendReplySchema>, ExtendReply>>();
same<Same<z.output<typeof inspectReplySchema>, InspectReply>>();
same<Same<z.output<typeof cancelWaitReplySchema>, CancelWaitReply>>();
same<Same<z.output<typeof waiterSchema>, WaiterView>>();
same<Same<z.output<typeof permitSchema>, PermitInfo>>();
same<Same<z.output<typeof semaphoreAcquireReplySchema>, SemaphoreAcquireReply>>();
same<Same<z.output<typeof semaphoreReleaseReplySchema>, SemaphoreReleaseReply>>();
same<Same<z.output<typeof semaphoreExtendReplySchema>, SemaphoreExtendReply>>();
same<Same<z.output<typeof semaphoreInspectReplySchema>, SemaphoreInspectReply>>();
same<Same<z.output<typeof rwGrantSchema>, RwGrantInfo>>();
same<Same<z.output<typeof rwAcquireReplySchema>, RwAcquireReply>>();
same<Same<z.output<typeof rwReleaseReplySchema>, RwReleaseReply>>();
same<Same<z.output<typeof rwExtendReplySchema>, RwExtendReply>>();
same<Same<z.output<typeof rwInspectReplySchema>, RwInspectReply>>();
same<
  {
    [C in ErrorCode]: Same<z.output<(typeof detailsByCode)[C]>, ErrorDetailsByCode[C]> extends true
      ? true
      : C;
  }[ErrorCode]
>();
