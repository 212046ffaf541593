import type { ResourcePolicy } from "../schemas/resource-policy.js";
import { UsageError } from "./cli-io.js";

/** The policy flags of `resource create` / `resource update`, as parseArgs options. */
export const POLICY_OPTIONS = {
  "default-lease-ms": { type: "string" },
  "max-lease-ms": { type: "string" },
  "max-renewals": { type: "string" },
  "expected-hold-ms": { type: "string" },
  "release-on-disconnect-ms": { type: "string" },
  "lock-delay-ms": { type: "string" },
  kind: { type: "string" },
  permits: { type: "string" },
  "writer-preference": { type: "string" },
  degrade: { type: "string" },
  "local-fallback": { type: "string" },
  fair: { type: "string" },
  "wait-replicas": { type: "string" },
  description: { type: "string" },
} as const;

export const POLICY_USAGE =
  "[--default-lease-ms <ms>] [--max-lease-ms <ms>] [--max-renewals <n>|none] " +
  "[--expected-hold-ms <ms>|none] [--release-on-disconnect-ms <ms>|none] [--lock-delay-ms <ms>] [--kind mutex|semaphore|rwlock] [--permits <n>] [--writer-preference true|false] [--degrade true|false] [--local-fallback deny|allow] " +
  "[--fair true|false] [--wait-replicas <n>] [--description <text>]";

type Flags = Partial<Record<keyof typeof POLICY_OPTIONS, string | boolean>>;

/**
 * The policy fields the flags set, typed but not range-checked: the API's own schema
 * (resourceCreateSchema / resourceUpdateSchema) checks ranges, so the CLI accepts exactly
 * what the API accepts.
 */
export function policyFromFlags(flags: Flags): Partial<ResourcePolicy> {
  const policy: { -readonly [K in keyof ResourcePolicy]?: ResourcePolicy[K] } = {};
  const text = (name: keyof Flags) => {
    const value = flags[name];
    return typeof value === "string" ? value : undefined;
  };
  const integer = (name: keyof Flags, value: string): number => {
    if (!/^-?\d+$/.test(value))
      throw new UsageError(`--${name} must be an integer, not "${value}"`);
    return Number(value);
  };
  const nullable = (name: keyof Flags, value: string): number | null =>
    value === "none" ? null : integer(name, value);
  const boolean = (name: keyof Flags, value: string): boolean => {
    if (value === "true") return true;
    if (value === "false") return false;
    throw new UsageError(`--${name} must be true or false, not "${value}"`);
  };
  let value: string | undefined;
  if ((value = text("default-lease-ms")) !== undefined)
    policy.defaultLeaseMs = integer("default-lease-ms", value);
  if ((value = text("max-lease-ms")) !== undefined)
    policy.maxLeaseMs = integer("max-lease-ms", value);
  if ((value = text("max-renewals")) !== undefined)
    policy.maxRenewals = nullable("max-renewals", value);
  if ((value = text("expected-hold-ms")) !== undefined)
    policy.expectedHoldMs = nullable("expected-hold-ms", value);
  if ((value = text("release-on-disconnect-ms")) !== undefined)
    policy.releaseOnDisconnectMs = nullable("release-on-disconnect-ms", value);
  if ((value = text("lock-delay-ms")) !== undefined)
    policy.lockDelayMs = integer("lock-delay-ms", value);
  // The kind is fixed at creation: the API refuses an update naming another one.
  if ((value = text("kind")) !== undefined) {
    if (value !== "mutex" && value !== "semaphore" && value !== "rwlock") {
      throw new UsageError(`--kind must be mutex, semaphore or rwlock, not "${value}"`);
    }
    policy.kind = value;
  }
  if ((value = text("permits")) !== undefined) policy.permits = integer("permits", value);
  if ((value = text("writer-preference")) !== undefined)
    policy.writerPreference = boolean("writer-preference", value);
  if ((value = text("degrade")) !== undefined) policy.degrade = boolean("degrade", value);
  if ((value = text("local-fallback")) !== undefined) {
    if (value !== "deny" && value !== "allow") {
      throw new UsageError(`--local-fallback must be deny or allow, not "${value}"`);
    }
    policy.localFallback = value;
  }
  if ((value = text("fair")) !== undefined) policy.fair = boolean("fair", value);
  if ((value = text("wait-replicas")) !== undefined)
    policy.waitReplicas = integer("wait-replicas", value);
  if ((value = text("description")) !== undefined) policy.description = value;
  return policy;
}
