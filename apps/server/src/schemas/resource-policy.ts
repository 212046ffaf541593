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
 * The policy fields of a resource (DESIGN.md §2), without cross-field rules so that an
 * update can take any subset of them.
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
  /** May move to the MySQL tier when Redis is down. */
  degrade: z.boolean(),
  /** `deny` = fail-closed (default), `allow` = in-process locks without a fence. */
  localFallback: z.enum(["deny", "allow"]),
  /** Waiters are served first come, first served. */
  fair: z.boolean(),
  /** Redis replicas that must acknowledge each grant (WAIT). */
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

/** The registration form: a name, the owning tenant, and a full policy. */
export const resourceCreateSchema = resourcePolicyFields
  .extend({
    name: resourceNameSchema,
    /** Owning tenant; a tenant API key may only name its own (and may omit it). */
    tenantId: tenantIdSchema.optional(),
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
