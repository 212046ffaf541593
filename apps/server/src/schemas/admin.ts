import { z } from "zod";
import {
  cursorSchema,
  epochMsSchema,
  businessKeySchema,
  fenceSchema,
  holderIdSchema,
  lockIdSchema,
  pageLimitSchema,
  reasonSchema,
  resourceNameSchema,
  tenantIdSchema,
  tierSchema,
} from "./common.js";

/** An operator's role, weakest first. */
export const operatorRoleSchema = z.enum(["viewer", "operator", "admin"]);

/** auth.login */
export const loginInputSchema = z.object({
  username: z.string().min(1).max(64),
  password: z.string().min(1).max(256),
});

/** A new password: long enough to resist guessing, short enough to hash cheaply. */
export const passwordSchema = z.string().min(12, "at least 12 characters").max(256);

/** auth.bootstrap: first-run admin creation with the printed one-time token. */
export const bootstrapInputSchema = z.object({
  token: z.string().min(16).max(128),
  username: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "letters, digits and ._-"),
  password: passwordSchema,
});

/** tier.override: `tier: null` hands the decision back to the controller. */
export const tierOverrideInputSchema = z.object({
  tier: tierSchema.nullable(),
  reason: reasonSchema,
});

/** tier.history */
export const tierHistoryInputSchema = z.object({
  limit: z.number().int().min(1).max(500).optional(),
});

/**
 * Audit event types (LockEvent.type): every type the server writes, so `event.search` can
 * filter by each (docs/decisions/0185).
 */
export const eventTypeSchema = z.enum([
  "grant",
  "refusal",
  "release",
  "extend",
  "expired",
  "renewal-refused",
  "force-release",
  "outcome-unknown",
  "replication-timeout",
  "epoch",
  "tier",
  "stale-fence",
  "local-mode",
  "policy",
  "revoke-requested",
  "rwlock-grant",
  "rwlock-release",
  "rwlock-expired",
  "rwlock-force-release",
  "permit-grant",
  "permit-release",
  "permit-expired",
  "permit-force-release",
]);

/** event.search: every filter optional, newest first, paged by cursor. */
export const eventSearchInputSchema = z.object({
  fence: fenceSchema.optional(),
  lockId: lockIdSchema.optional(),
  clientId: holderIdSchema.optional(),
  ownerId: holderIdSchema.optional(),
  businessKey: businessKeySchema.optional(),
  resource: resourceNameSchema.optional(),
  type: eventTypeSchema.optional(),
  fromMs: epochMsSchema.optional(),
  toMs: epochMsSchema.optional(),
  cursor: cursorSchema.optional(),
  limit: pageLimitSchema.optional(),
});

/** stats.series: one resource (or all), the last `windowSec` seconds in steps of `stepSec`. */
export const statsSeriesInputSchema = z.object({
  resource: resourceNameSchema.optional(),
  windowSec: z.number().int().min(10).max(3_600).optional(),
  stepSec: z.number().int().min(1).max(60).optional(),
});

/** stats.overview / stats.holdTimes: one resource or all, over the last `windowSec`. */
export const statsWindowInputSchema = z.object({
  resource: resourceNameSchema.optional(),
  windowSec: z.number().int().min(10).max(3_600).optional(),
});

/** client.heartbeat: what an SDK instance says about itself every few seconds. */
export const heartbeatInputSchema = z.object({
  host: z.string().min(1).max(255),
  pid: z.number().int().min(0).max(4_294_967_295),
  sdkVersion: z.string().min(1).max(32),
  tier: tierSchema,
  /** Since when the instance holds local (unfenced) locks; null when it holds none. */
  localSinceMs: epochMsSchema.nullable().optional(),
  /** Local-mode periods that ended since the last heartbeat. */
  localPeriods: z
    .array(z.object({ fromMs: epochMsSchema, toMs: epochMsSchema }))
    .max(100)
    .optional(),
});

/** client.list */
export const clientListInputSchema = z.object({
  activeWithinMs: z.number().int().min(1_000).max(86_400_000).optional(),
  limit: pageLimitSchema.optional(),
});

/** resource.list */
export const resourceListInputSchema = z.object({
  search: z.string().max(128).optional(),
  tenantId: tenantIdSchema.optional(),
  includeRetired: z.boolean().optional(),
  cursor: resourceNameSchema.optional(),
  limit: pageLimitSchema.optional(),
});

/** resource.get / resource.retire */
export const resourceNameInputSchema = z.object({ name: resourceNameSchema });

/** tenant.create */
export const tenantCreateInputSchema = z.object({
  id: tenantIdSchema,
  name: z.string().min(1).max(200),
  requestsPerSecond: z.number().int().min(1).max(1_000_000).optional(),
});

/** tenant.createApiKey */
export const apiKeyCreateInputSchema = z.object({
  tenantId: tenantIdSchema,
  name: z.string().min(1).max(200),
});

/** tenant.revokeApiKey */
export const apiKeyRevokeInputSchema = z.object({ id: z.string().min(1).max(32) });

/** live.events */
export const liveInputSchema = z.object({
  resource: resourceNameSchema.optional(),
  lastEventId: z.string().max(64).nullish(),
});
