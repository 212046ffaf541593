import {
  RESOURCE_POLICY_DEFAULTS,
  resourceCreateSchema,
  resourceUpdateSchema,
  type ResourceCreateInput,
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
  "waitReplicas",
] as const;
const NULLABLE_FIELDS = new Set<ResourceFormField>(["maxRenewals", "expectedHoldMs"]);
const FIELDS = new Set<string>([
  "name",
  "tenantId",
  ...NUMBER_FIELDS,
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

// Text → what the schema expects; invalid text stays NaN so that zod reports it on its field.
function numberOrBlank(text: string, nullable: boolean): number | null | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return nullable ? null : undefined;
  return /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : Number.NaN;
}

function policyInput(values: ResourceFormValues): Record<string, unknown> {
  const numbers = Object.fromEntries(
    NUMBER_FIELDS.map((field) => [field, numberOrBlank(values[field], NULLABLE_FIELDS.has(field))]),
  );
  return {
    ...numbers,
    degrade: values.degrade,
    localFallback: values.localFallback,
    fair: values.fair,
    description: values.description,
  };
}

function issueMessage(issue: z.core.$ZodIssue, values: ResourceFormValues): string {
  const field = issue.path[0];
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
    errors[field] ??= issueMessage(issue, values);
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
 * `fieldErrors`); a nested update reports under `patch`, which belongs to the form.
 */
export function errorsFromServer(
  fieldErrors: Record<string, string[] | undefined> | null | undefined,
  message: string,
): FieldErrors {
  const errors: FieldErrors = {};
  for (const [name, messages] of Object.entries(fieldErrors ?? {})) {
    const first = messages?.[0];
    if (first === undefined) continue;
    const field = FIELDS.has(name) ? (name as ResourceFormField) : "form";
    errors[field] ??= first;
  }
  if (Object.keys(errors).length === 0) {
    // Domain errors name their field as a prefix: "tenantId: name the owning tenant".
    const prefixed = /^([A-Za-z]+): (.+)$/.exec(message);
    const field = prefixed?.[1];
    if (field !== undefined && FIELDS.has(field))
      errors[field as ResourceFormField] = prefixed?.[2] ?? message;
    else errors.form = message;
  }
  return errors;
}
