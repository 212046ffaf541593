import type { ReactNode } from "react";
import type { ResourceFormView } from "../hooks/use-resource-form";
import { formatDuration } from "../lib/format-time";
import type { ResourceFormField, ResourceFormValues } from "../lib/resource-form";

/** The kinds a resource can be registered as. */
const KINDS: readonly ResourceFormValues["kind"][] = ["mutex", "semaphore", "rwlock"];

function kindOf(value: string): ResourceFormValues["kind"] {
  return KINDS.find((kind) => kind === value) ?? "mutex";
}

function Field({
  id,
  label,
  hint,
  error,
  children,
  span,
}: {
  readonly id: string;
  readonly label: string;
  readonly hint?: string;
  readonly error: string | undefined;
  readonly children: ReactNode;
  readonly span?: boolean;
}) {
  return (
    <div className={`field${span ? " span-2" : ""}`}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint ? (
        <span className="field-hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
      {error ? (
        <span
          className="field-error"
          id={`${id}-error`}
          data-testid={`error-${id.replace(/^rf-/, "")}`}
        >
          {error}
        </span>
      ) : null}
    </div>
  );
}

function describedBy(id: string, hint: boolean, error: string | undefined): string | undefined {
  const ids = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean);
  return ids.length === 0 ? undefined : ids.join(" ");
}

function Suggestion({ form }: { readonly form: ResourceFormView }) {
  const suggestion = form.suggestion;
  if (form.mode === "create") {
    return (
      <p className="muted">
        A suggested lease appears on the edit form once the resource has observed holds (p99.9 of
        hold times × margin).
      </p>
    );
  }
  if (suggestion === null) return <p className="muted">Loading observed hold times…</p>;
  if (suggestion.leaseMs === null) {
    return <p className="muted">No suggestion yet: {suggestion.reason}.</p>;
  }
  return (
    <div data-testid="lease-suggestion">
      <p>
        Suggested <strong>defaultLeaseMs = {suggestion.leaseMs}</strong> (
        {formatDuration(suggestion.leaseMs)}){suggestion.capped ? " — capped at maxLeaseMs" : ""}.
      </p>
      <dl className="facts num">
        <dt>observed holds</dt>
        <dd>{suggestion.samples} in the last hour</dd>
        <dt>p99.9 hold</dt>
        <dd>{formatDuration(suggestion.p999HoldMs)}</dd>
        <dt>× margin</dt>
        <dd>
          {suggestion.margin} = {formatDuration(suggestion.rawMs)}, rounded up
        </dd>
      </dl>
      <button type="button" className="button button-small" onClick={form.applySuggestion}>
        Use {suggestion.leaseMs} ms
      </button>
    </div>
  );
}

/**
 * The register / edit form: the policy fields (docs/design.md#resource-policy), each with its
 * inline error.
 */
export function ResourceForm({
  form,
  onCancel,
}: {
  readonly form: ResourceFormView;
  readonly onCancel: () => void;
}) {
  const { values, errors } = form;
  const text = (field: ResourceFormField, hint?: string, inputMode?: "numeric") => {
    const id = `rf-${field}`;
    const value = values[field];
    return {
      id,
      name: field,
      type: "text",
      inputMode,
      value: typeof value === "string" ? value : "",
      "aria-invalid": errors[field] ? true : undefined,
      "aria-describedby": describedBy(id, hint !== undefined, errors[field]),
      onChange: (event: { target: { value: string } }) => form.set(field, event.target.value),
    };
  };
  const hints = {
    name: "letters, digits and :._- e.g. order:settle; cannot change later",
    tenantId: "owning tenant, e.g. payments",
    defaultLeaseMs: "lease when an acquire names none (ms)",
    maxLeaseMs: "longest lease an acquire or extend may ask for; at most 60000 ms",
    maxRenewals: "blank = unlimited",
    expectedHoldMs: "typical hold; an alert fires past 3×. Blank = no alert",
    releaseOnDisconnectMs:
      "release a holder's locks once its SDK instance is gone from every server this long, 0–60000 ms. Blank = at their TTL only",
    waitReplicas: "Redis replicas that must acknowledge each grant (WAIT), 0–16",
    permits: "a semaphore's total per key, 1–10000; blank for a mutex",
    kind: "mutex = one holder per key; semaphore = at most permits per key; rwlock = many readers or one writer per key. Fixed once registered",
    writerPreference:
      "on: a writer waiting for the key stops new readers, so writers do not starve; off: readers keep entering while a writer waits",
    lockDelayMs:
      "after a lease expires or is force-released, grant the key to nobody for this long, 0–60000 ms; 0 or blank = none. A voluntary release starts none",
  };
  return (
    <form
      noValidate
      aria-label={form.mode === "create" ? "Register resource" : "Edit resource"}
      onSubmit={(event) => {
        event.preventDefault();
        form.submit();
      }}
    >
      {errors.form ? (
        <div className="notice tone-red" role="alert" data-testid="form-error">
          {errors.form}
        </div>
      ) : null}
      <div className="grid grid-2" style={{ alignItems: "start" }}>
        <section className="card">
          {/* Until the stored policy has loaded the inputs show the defaults: typing then would be
              overwritten by the load, so they are disabled until it arrives. */}
          <fieldset className="form-grid plain-fieldset" disabled={!form.ready}>
            <Field id="rf-name" label="Name" hint={hints.name} error={errors.name}>
              <input
                {...text("name", hints.name)}
                readOnly={form.mode === "edit"}
                autoFocus={form.mode === "create"}
              />
            </Field>
            <Field id="rf-tenantId" label="Tenant" hint={hints.tenantId} error={errors.tenantId}>
              <input {...text("tenantId", hints.tenantId)} readOnly={form.mode === "edit"} />
            </Field>
            <Field
              id="rf-defaultLeaseMs"
              label="defaultLeaseMs"
              hint={hints.defaultLeaseMs}
              error={errors.defaultLeaseMs}
            >
              <input {...text("defaultLeaseMs", hints.defaultLeaseMs, "numeric")} className="num" />
            </Field>
            <Field
              id="rf-maxLeaseMs"
              label="maxLeaseMs"
              hint={hints.maxLeaseMs}
              error={errors.maxLeaseMs}
            >
              <input {...text("maxLeaseMs", hints.maxLeaseMs, "numeric")} className="num" />
            </Field>
            <Field
              id="rf-maxRenewals"
              label="maxRenewals"
              hint={hints.maxRenewals}
              error={errors.maxRenewals}
            >
              <input {...text("maxRenewals", hints.maxRenewals, "numeric")} className="num" />
            </Field>
            <Field
              id="rf-expectedHoldMs"
              label="expectedHoldMs"
              hint={hints.expectedHoldMs}
              error={errors.expectedHoldMs}
            >
              <input {...text("expectedHoldMs", hints.expectedHoldMs, "numeric")} className="num" />
            </Field>
            {values.kind === "mutex" ? (
              <>
                <Field
                  id="rf-releaseOnDisconnectMs"
                  label="releaseOnDisconnectMs"
                  hint={hints.releaseOnDisconnectMs}
                  error={errors.releaseOnDisconnectMs}
                >
                  <input
                    {...text("releaseOnDisconnectMs", hints.releaseOnDisconnectMs, "numeric")}
                    className="num"
                  />
                </Field>
                <Field
                  id="rf-lockDelayMs"
                  label="lockDelayMs"
                  hint={hints.lockDelayMs}
                  error={errors.lockDelayMs}
                >
                  <input {...text("lockDelayMs", hints.lockDelayMs, "numeric")} className="num" />
                </Field>
              </>
            ) : null}
            <Field
              id="rf-waitReplicas"
              label="waitReplicas"
              hint={hints.waitReplicas}
              error={errors.waitReplicas}
            >
              <input {...text("waitReplicas", hints.waitReplicas, "numeric")} className="num" />
            </Field>
            <Field id="rf-kind" label="kind" hint={hints.kind} error={errors.kind}>
              <select
                id="rf-kind"
                name="kind"
                value={values.kind}
                disabled={form.mode === "edit"}
                aria-describedby="rf-kind-hint"
                onChange={(event) => form.set("kind", kindOf(event.target.value))}
              >
                {KINDS.map((kind) => (
                  <option key={kind} value={kind}>
                    {kind}
                  </option>
                ))}
              </select>
            </Field>
            {values.kind === "rwlock" ? (
              <div className="field">
                <label className="field field-check" htmlFor="rf-writerPreference">
                  <input
                    id="rf-writerPreference"
                    type="checkbox"
                    name="writerPreference"
                    checked={values.writerPreference}
                    aria-describedby={describedBy(
                      "rf-writerPreference",
                      true,
                      errors.writerPreference,
                    )}
                    aria-invalid={errors.writerPreference ? true : undefined}
                    onChange={(event) => form.set("writerPreference", event.target.checked)}
                  />
                  writerPreference
                </label>
                <span className="field-hint" id="rf-writerPreference-hint">
                  {hints.writerPreference}
                </span>
                {errors.writerPreference ? (
                  <span
                    className="field-error"
                    id="rf-writerPreference-error"
                    data-testid="error-writerPreference"
                  >
                    {errors.writerPreference}
                  </span>
                ) : null}
              </div>
            ) : (
              <Field id="rf-permits" label="permits" hint={hints.permits} error={errors.permits}>
                <input {...text("permits", hints.permits, "numeric")} className="num" />
              </Field>
            )}
            <Field
              id="rf-localFallback"
              label="localFallback"
              hint="deny = fail-closed (default); allow = in-process locks without a fence when Redis and MySQL are down"
              error={errors.localFallback}
            >
              <select
                id="rf-localFallback"
                name="localFallback"
                value={values.localFallback}
                aria-describedby="rf-localFallback-hint"
                onChange={(event) =>
                  form.set("localFallback", event.target.value === "allow" ? "allow" : "deny")
                }
              >
                <option value="deny">deny (fail-closed)</option>
                <option value="allow">allow (fail-open, unfenced)</option>
              </select>
            </Field>
            <label className="field field-check">
              <input
                type="checkbox"
                name="degrade"
                checked={values.degrade}
                onChange={(event) => form.set("degrade", event.target.checked)}
              />
              degrade — may move to MySQL when Redis is down
            </label>
            {values.kind === "rwlock" ? null : (
              <label className="field field-check">
                <input
                  type="checkbox"
                  name="fair"
                  checked={values.fair}
                  onChange={(event) => form.set("fair", event.target.checked)}
                />
                fair — waiters served first come, first served
              </label>
            )}
            <Field id="rf-description" label="Description" error={errors.description} span>
              <textarea
                id="rf-description"
                name="description"
                rows={3}
                value={values.description}
                aria-invalid={errors.description ? true : undefined}
                onChange={(event) => form.set("description", event.target.value)}
              />
            </Field>
          </fieldset>
          <div className="actions" style={{ marginTop: 16 }}>
            <button
              type="submit"
              className="button button-primary"
              disabled={form.submitting || !form.ready}
            >
              {form.submitting ? "Saving…" : form.mode === "create" ? "Register" : "Save changes"}
            </button>
            <button type="button" className="button" onClick={onCancel}>
              Cancel
            </button>
          </div>
        </section>
        <section className="card" aria-labelledby="suggest-title">
          <h2 id="suggest-title">Suggested lease</h2>
          <Suggestion form={form} />
        </section>
      </div>
    </form>
  );
}
