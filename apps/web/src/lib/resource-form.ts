import {
  RESOURCE_POLICY_DEFAULTS,
  resourceCreateSchema,
  resourceUpdateSchema,
  type ResourceCreateInput,
  type ResourceKind,
  type ResourcePolicy,
  type ResourceUpdateInput,
} from "@warden/server/schemas";
import type { z } from "zod";

/** The registration form as the inputs hold it: numbers are text until parsed. */
export interface ResourceFormValues {
  name: string;
  tenantId: string;
  defaultLeaseMs: string;
  maxLeaseMs: string;
  /** Empty = unlimited. */
  maxRenewals: string;
  /** Empty = no long-hold alert. */
  expectedHoldMs: string;
  /** Empty = a gone holder keeps its locks until their TTL. */
  releaseOnDisconnectMs: string;
  /** No grant of a key for this long after its lease ended involuntarily; 0 = none. */
  lockDelayMs: string;
  /** The resource kind; chosen at registration (mutex, semaphore or rwlock), fixed afterwards. */
  kind: ResourceKind;
  /** A semaphore's total per key; empty for a mutex, and not sent for an rwlock. */
  permits: string;
  /** rwlock only: a waiting writer stops new readers. Sent only for an rwlock. */
  writerPreference: boolean;
  degrade: boolean;
  localFallback: "deny" | "allow";
  fair: boolean;
  waitReplicas: string;
  description: string;
}

/** A field of the form. */
export type ResourceFormField = keyof ResourceFormValues;

/** One message per field, plus `form` for what belongs to no single field. */
export type FieldErrors = Partial<Record<ResourceFormField | "form", string>>;

/** The outcome of parsing the form. */
export type ParseResult<T> =
  | { readonly ok: true; readonly input: T }
  | { readonly ok: false; readonly errors: FieldErrors };

const NUMBER_FIELDS = [
  "defaultLeaseMs",
  "maxLeaseMs",
  "maxRenewals",
  "expectedHoldMs",
  "releaseOnDisconnectMs",
  "lockDelayMs",
  "permits",
  "waitReplicas",
] as const;
const NULLABLE_FIELDS = new Set<ResourceFormField>([
  "maxRenewals",
  "expectedHoldMs",
  "releaseOnDisconnectMs",
  "permits",
]);
const FIELDS = new Set<string>([
  "name",
  "tenantId",
  ...NUMBER_FIELDS,
  "kind",
  "writerPreference",
  "degrade",
  "localFallback",
  "fair",
  "description",
]);

function policyValues(policy: ResourcePolicy): Omit<ResourceFormValues, "name" | "tenantId"> {
  return {
    defaultLeaseMs: String(policy.defaultLeaseMs),
    maxLeaseMs: String(policy.maxLeaseMs),
    maxRenewals: policy.maxRenewals === null ? "" : String(policy.maxRenewals),
    expectedHoldMs: policy.expectedHoldMs === null ? "" : String(policy.expectedHoldMs),
    releaseOnDisconnectMs:
      policy.releaseOnDisconnectMs === null ? "" : String(policy.releaseOnDisconnectMs),
    lockDelayMs: String(policy.lockDelayMs),
    kind: policy.kind,
    permits: policy.permits === null ? "" : String(policy.permits),
    writerPreference: policy.writerPreference,
    degrade: policy.degrade,
    localFallback: policy.localFallback,
    fair: policy.fair,
    waitReplicas: String(policy.waitReplicas),
    description: policy.description,
  };
}

/** A new resource's form, with the server's policy defaults. */
export function emptyResourceForm(): ResourceFormValues {
  return { name: "", tenantId: "", ...policyValues(RESOURCE_POLICY_DEFAULTS) };
}

/** The edit form of an existing resource. */
export function formFromResource(
  resource: ResourcePolicy & { name: string; tenantId: string },
): ResourceFormValues {
  return { name: resource.name, tenantId: resource.tenantId, ...policyValues(resource) };
}

// Blank lockDelayMs means none (0), on create and edit alike: an edit's patch would otherwise
// drop it and keep the old delay.
const BLANK_IS_ZERO = new Set<ResourceFormField>(["lockDelayMs"]);

// Text → what the schema expects; invalid text stays NaN so that zod reports it on its field.
function numberOrBlank(text: string, field: ResourceFormField): number | null | undefined {
  const trimmed = text.trim();
  if (trimmed === "")
    return NULLABLE_FIELDS.has(field) ? null : BLANK_IS_ZERO.has(field) ? 0 : undefined;
  return /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : Number.NaN;
}

/**
 * The fields a mutex alone takes: the registry refuses a lock-delay or a disconnect grace on a
 * semaphore or a read-write lock (their permits and grants end at their TTL), so the form
 * hides them for those kinds. `waitReplicas` is every kind's: a mutex's grants, a semaphore's
 * permits and a read-write lock's read and write grants all wait for the replicas.
 */
const MUTEX_ONLY_FIELDS: ReadonlySet<ResourceFormField> = new Set([
  "lockDelayMs",
  "releaseOnDisconnectMs",
]);

// Whether a field is hidden for `kind`; a hidden field sends none, so a number typed before
// switching the kind is dropped, not refused.
function hidden(field: ResourceFormField, kind: ResourceFormValues["kind"]): boolean {
  return (
    (field === "permits" && kind === "rwlock") || (MUTEX_ONLY_FIELDS.has(field) && kind !== "mutex")
  );
}

function hiddenValue(field: ResourceFormField): number | null {
  return field === "lockDelayMs" ? 0 : null;
}

// What the form sends. A read-write lock has no permits; only a mutex has a lock-delay and a
// disconnect grace (hidden fields send none, see hiddenValue); every kind sends the typed
// waitReplicas. A read-write lock is the only kind whose writer preference is sent: the server
// refuses `false` on the others, and leaving it out keeps their stored value.
function policyInput(values: ResourceFormValues): Record<string, unknown> {
  const rwlock = values.kind === "rwlock";
  const numbers = Object.fromEntries(
    NUMBER_FIELDS.map((field) => [
      field,
      hidden(field, values.kind) ? hiddenValue(field) : numberOrBlank(values[field], field),
    ]),
  );
  return {
    ...numbers,
    kind: values.kind,
    ...(rwlock ? { writerPreference: values.writerPreference } : {}),
    degrade: values.degrade,
    localFallback: values.localFallback,
    // A read-write lock has no FIFO order (the server refuses fair on it): never sent true.
    fair: rwlock ? false : values.fair,
    description: values.description,
  };
}

function issueMessage(
  issue: z.core.$ZodIssue,
  field: PropertyKey | undefined,
  values: ResourceFormValues,
): string {
  if (issue.code === "invalid_type" && typeof field === "string" && field in values) {
    const text = values[field as ResourceFormField];
    return typeof text === "string" && text.trim() === "" ? "required" : "must be a whole number";
  }
  return issue.message;
}

/** Groups zod issues by form field (first message wins); paths under `patch` map to their field. */
export function errorsFromIssues(
  issues: readonly z.core.$ZodIssue[],
  values: ResourceFormValues,
): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const path = issue.path[0] === "patch" ? issue.path.slice(1) : issue.path;
    const head = path[0];
    const field =
      typeof head === "string" && FIELDS.has(head) ? (head as ResourceFormField) : "form";
    errors[field] ??= issueMessage(issue, head, values);
  }
  return errors;
}

/** Parses the registration form with the server's own schema. */
export function parseCreateForm(values: ResourceFormValues): ParseResult<ResourceCreateInput> {
  const tenantId = values.tenantId.trim();
  const parsed = resourceCreateSchema.safeParse({
    name: values.name.trim(),
    ...(tenantId === "" ? {} : { tenantId }),
    ...policyInput(values),
  });
  return parsed.success
    ? { ok: true, input: parsed.data }
    : { ok: false, errors: errorsFromIssues(parsed.error.issues, values) };
}

/** Parses the edit form into a full-policy patch, with the server's own schema. */
export function parseUpdateForm(values: ResourceFormValues): ParseResult<ResourceUpdateInput> {
  const parsed = resourceUpdateSchema.safeParse({ name: values.name, patch: policyInput(values) });
  return parsed.success
    ? { ok: true, input: parsed.data }
    : { ok: false, errors: errorsFromIssues(parsed.error.issues, values) };
}

/**
 * Field errors the server sent back (its error formatter flattens zod issues into
 * `fieldErrors`); a nested update reports under `patch`, which belongs to the form. A
 * domain error that names a field (an INVALID_ARGUMENT's typed `details.field` and
 * `details.reason`) goes on that field; anything else on the form.
 */
export function errorsFromServer(
  fieldErrors: Record<string, string[] | undefined> | null | undefined,
  message: string,
  details: Readonly<Record<string, unknown>> | null = null,
): FieldErrors {
  const errors: FieldErrors = {};
  for (const [name, messages] of Object.entries(fieldErrors ?? {})) {
    const first = messages?.[0];
    if (first === undefined) continue;
    const field = FIELDS.has(name) ? (name as ResourceFormField) : "form";
    errors[field] ??= first;
  }
  if (Object.keys(errors).length === 0) {
    const field = details?.["field"];
    const reason = details?.["reason"];
    if (typeof field === "string" && FIELDS.has(field) && typeof reason === "string")
      errors[field as ResourceFormField] = reason;
    else errors.form = message;
  }
  return errors;
}
