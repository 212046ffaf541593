import { z } from "zod";
import { resourceNameSchema, tenantIdSchema } from "./common.js";
import { API_LIMITS } from "./limits.js";

const policyMs = (label: string) =>
  z
    .number()
    .int(`${label} must be an integer number of milliseconds`)
    .min(1, `${label} must be at least 1 ms`)
    .max(API_LIMITS.maxLeaseMs, `${label} must be at most ${API_LIMITS.maxLeaseMs} ms`);

/**
 * How long a holder's SDK instance may be gone (no lock connection on any server instance)
 * before its locks on the resource are released, in ms (docs/decisions/0150). 0 = as soon as
 * the fleet notices; at most the longest lease, past which the TTL frees the lock anyway.
 */
export const releaseOnDisconnectMsSchema = z
  .number()
  .int("releaseOnDisconnectMs must be an integer number of milliseconds")
  .min(0, "releaseOnDisconnectMs must be at least 0 ms")
  .max(API_LIMITS.maxLeaseMs, `releaseOnDisconnectMs must be at most ${API_LIMITS.maxLeaseMs} ms`);

/**
 * What a resource is (docs/decisions/0161, 0166): `mutex`, one holder per key (the default),
 * `semaphore`, at most `permits` per key, or `rwlock`, many readers or one writer per key.
 * Fixed at creation.
 */
export const resourceKindSchema = z.enum(["mutex", "semaphore", "rwlock"]);

/** The kind of a resource. */
export type ResourceKind = z.infer<typeof resourceKindSchema>;

/** Most permits a semaphore resource may have (the stores' limit, docs/decisions/0160). */
export const MAX_SEMAPHORE_PERMITS = 10_000;

/** A semaphore's total per key: an integer in 1..10 000. */
export const permitsSchema = z
  .number()
  .int("permits must be an integer")
  .min(1, "permits must be at least 1")
  .max(MAX_SEMAPHORE_PERMITS, `permits must be at most ${MAX_SEMAPHORE_PERMITS}`);

/**
 * Lock-delay (docs/decisions/0175): after a lease ends involuntarily (expiry, force-release)
 * no new grant of that key for this long, in ms; 0 = none. At most 60 000, the stores' cap
 * (`MAX_LOCK_DELAY_MS` in @warden/core; this module is shared with the console, which must
 * not import the stores).
 */
export const lockDelayMsSchema = z
  .number()
  .int("lockDelayMs must be an integer number of milliseconds")
  .min(0, "lockDelayMs must be at least 0 ms")
  .max(60_000, "lockDelayMs must be at most 60000 ms");

/**
 * The policy fields of a resource (docs/design.md#resource-policy), without cross-field rules so
 * that an update can take any subset of them.
 */
export const resourcePolicyFields = z.object({
  /** Lease an acquire gets when it names none, in ms. */
  defaultLeaseMs: policyMs("defaultLeaseMs"),
  /** Longest lease an acquire or extend may ask for, in ms (hard cap 60 000). */
  maxLeaseMs: policyMs("maxLeaseMs"),
  /** Renewals one grant may make; null = unlimited. */
  maxRenewals: z.number().int().min(0).max(1_000_000).nullable(),
  /** Typical hold in ms; holds past 3× raise an alert. Null = no alert. */
  expectedHoldMs: z.number().int().min(1).max(86_400_000).nullable(),
  /** Release a gone holder's locks after this many ms; null = at their TTL only. */
  releaseOnDisconnectMs: releaseOnDisconnectMsSchema.nullable(),
  /** No grant of a key for this long after its lease ended involuntarily; 0 = none. */
  lockDelayMs: lockDelayMsSchema,
  /** mutex or semaphore; fixed at creation (an update naming another kind is refused). */
  kind: resourceKindSchema,
  /** A semaphore's total per key; null for a mutex (required for a semaphore). */
  permits: permitsSchema.nullable(),
  /** rwlock only: a waiting writer stops new readers (docs/decisions/0166); true elsewhere. */
  writerPreference: z.boolean(),
  /** May move to the MySQL tier when Redis is down. */
  degrade: z.boolean(),
  /** `deny` = fail-closed (default), `allow` = in-process locks without a fence. */
  localFallback: z.enum(["deny", "allow"]),
  /** Waiters are served first come, first served. */
  fair: z.boolean(),
  /** Redis replicas that must acknowledge each grant (WAIT), on every kind (decision 0222). */
  waitReplicas: z.number().int().min(0).max(API_LIMITS.maxWaitReplicas),
  /** What the lock protects, for the people on call. */
  description: z.string().max(API_LIMITS.maxDescriptionChars),
});

/** A resource's policy as stored and shown. */
export type ResourcePolicy = z.infer<typeof resourcePolicyFields>;

/** Defaults of a new resource's policy. */
export const RESOURCE_POLICY_DEFAULTS: Readonly<ResourcePolicy> = Object.freeze({
  defaultLeaseMs: 10_000,
  maxLeaseMs: 60_000,
  maxRenewals: null,
  expectedHoldMs: null,
  releaseOnDisconnectMs: null,
  lockDelayMs: 0,
  kind: "mutex",
  permits: null,
  writerPreference: true,
  degrade: true,
  localFallback: "deny",
  fair: false,
  waitReplicas: 0,
  description: "",
});

function leasesConsistent(policy: { defaultLeaseMs?: number; maxLeaseMs?: number }): boolean {
  if (policy.defaultLeaseMs === undefined || policy.maxLeaseMs === undefined) return true;
  return policy.defaultLeaseMs <= policy.maxLeaseMs;
}

const LEASE_ORDER = {
  message: "defaultLeaseMs must not exceed maxLeaseMs",
  path: ["defaultLeaseMs"],
};

/** Resource names the server keeps for its own locks. */
export const RESERVED_PREFIX = "warden:";

/** The registration form: a name, the owning tenant, and a full policy. */
export const resourceCreateSchema = resourcePolicyFields
  .extend({
    // `warden:` names the server's own locks (e.g. the fleet's alert evaluator): a tenant that
    // registered one could hold them and silence the fleet's alerts.
    name: resourceNameSchema.refine((name) => !name.startsWith(RESERVED_PREFIX), {
      message: `names starting with "${RESERVED_PREFIX}" are reserved for Warden's own locks`,
    }),
    /** Owning tenant; a tenant API key may only name its own (and may omit it). */
    tenantId: tenantIdSchema.optional(),
    // Optional at registration (null: TTL only), so clients written before it still register.
    releaseOnDisconnectMs: releaseOnDisconnectMsSchema.nullable().default(null),
    // A mutex unless said otherwise; a semaphore names its permits (checked by the registry).
    kind: resourceKindSchema.default("mutex"),
    permits: permitsSchema.nullable().default(null),
    // A read-write lock prefers writers unless told otherwise (docs/decisions/0166).
    writerPreference: z.boolean().default(true),
    // No lock-delay unless asked for (docs/decisions/0175).
    lockDelayMs: lockDelayMsSchema.default(0),
  })
  .refine(leasesConsistent, LEASE_ORDER);

/** Input of resource.create. */
export type ResourceCreateInput = z.infer<typeof resourceCreateSchema>;

/** An edit: the name and any subset of the policy. */
export const resourceUpdateSchema = z.object({
  name: resourceNameSchema,
  patch: resourcePolicyFields.partial().refine(leasesConsistent, LEASE_ORDER),
});

/** Input of resource.update. */
export type ResourceUpdateInput = z.infer<typeof resourceUpdateSchema>;
