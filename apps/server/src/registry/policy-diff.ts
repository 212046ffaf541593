import type { ResourceView } from "./resource-view.js";

// Fields whose change is a policy change; times and the name are not.
const POLICY_FIELDS = [
  "tenantId",
  "defaultLeaseMs",
  "maxLeaseMs",
  "maxRenewals",
  "expectedHoldMs",
  "releaseOnDisconnectMs",
  "lockDelayMs",
  "kind",
  "permits",
  "writerPreference",
  "degrade",
  "localFallback",
  "fair",
  "waitReplicas",
  "description",
  "retiredAt",
] as const satisfies readonly (keyof ResourceView)[];

// The audit row's reason column holds 500 characters.
const MAX_REASON = 500;
// A long description is abbreviated in the diff so that every changed field still fits.
const MAX_VALUE_CHARS = 80;

type Value = string | number | boolean | null;

function shown(value: Value): Value {
  return typeof value === "string" && value.length > MAX_VALUE_CHARS
    ? `${value.slice(0, MAX_VALUE_CHARS)}…`
    : value;
}

/**
 * The changed fields of a policy as `{"field":[before,after],…}`, prefixed by the verb
 * (`create`, `update`, `retire`); for a creation every field's before is null. At most 500
 * characters (the audit's reason column).
 */
export function policyDiff(before: ResourceView | null, after: ResourceView): string {
  const changed: Record<string, [Value, Value]> = {};
  for (const field of POLICY_FIELDS) {
    const was: Value = before === null ? null : before[field];
    const now: Value = after[field];
    if (was !== now) changed[field] = [shown(was), shown(now)];
  }
  const verb =
    before === null
      ? "create"
      : before.retiredAt === null && after.retiredAt !== null
        ? "retire"
        : "update";
  const text = `${verb} ${JSON.stringify(changed)}`;
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON - 1)}…` : text;
}
