import {
  context,
  createContextKey,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from "@opentelemetry/api";
import type { IncomingHttpHeaders } from "node:http";
import { LockTimeoutError } from "@warden/contract";

/*
 * The server's OpenTelemetry spans, through `@opentelemetry/api` only: without an
 * OpenTelemetry SDK registered in the process every span is a non-recording no-op
 * (docs/decisions/0145-opentelemetry-tracing.md).
 */

const tracer = trace.getTracer("@warden/server");

// Set while a `renew` command runs: its leases' extends get no span of their own.
const IN_RENEW = createContextKey("warden.renew");

/** Longest business key put on a span, in characters (keys are up to 512 bytes). */
const MAX_KEY_CHARS = 128;

/** The span attributes naming one key of a resource. */
export function keyAttributes(resource: string, businessKey: string): Attributes {
  return {
    "warden.resource": resource,
    "warden.business_key":
      businessKey.length > MAX_KEY_CHARS ? businessKey.slice(0, MAX_KEY_CHARS) : businessKey,
  };
}

/** The span attributes of a grant or lease. */
export function grantAttributes(grant: {
  readonly lockId: string;
  readonly fence: string | null;
  readonly tier: string;
}): Attributes {
  return {
    "warden.lock_id": grant.lockId,
    ...(grant.fence === null ? {} : { "warden.fence": grant.fence }),
    "warden.tier": grant.tier,
  };
}

/**
 * The context a lock-protocol command carries (`traceparent`/`tracestate` of the caller's
 * span, W3C trace context), or null when it carries none or something else.
 */
export function commandContext(carrier: unknown): Context | null {
  if (typeof carrier !== "object" || carrier === null || Array.isArray(carrier)) return null;
  const { traceparent, tracestate } = carrier as { traceparent?: unknown; tracestate?: unknown };
  if (typeof traceparent !== "string" || traceparent.length > 128) return null;
  const fields: Record<string, string> = { traceparent };
  if (typeof tracestate === "string" && tracestate.length <= 512) fields.tracestate = tracestate;
  return propagation.extract(context.active(), fields);
}

/**
 * The context of an HTTP request's `traceparent`/`tracestate` headers (W3C trace context),
 * for the REST and tRPC HTTP paths, or null when it carries none; malformed ones are
 * ignored as on the lock protocol (see commandContext).
 */
export function requestContext(headers: IncomingHttpHeaders): Context | null {
  const { traceparent, tracestate } = headers;
  return traceparent === undefined ? null : commandContext({ traceparent, tracestate });
}

/**
 * Runs `run` under a server span `name` (the active context's span, e.g. the caller's
 * propagated one, is its parent); `describe` adds the result's attributes and outcome. An
 * error ends the span with outcome `timeout` (a wait that ran out) or `error`, and its
 * Warden code. Without a recording span, `run` runs as is.
 */
export function traced<T>(
  name: string,
  attributes: () => Attributes,
  run: () => Promise<T>,
  describe: (result: T, span: Span) => void,
): Promise<T> {
  // Attributes are built only for a recording span (a sampler sees none at the start).
  const span = tracer.startSpan(name, { kind: SpanKind.SERVER });
  if (!span.isRecording()) return run();
  span.setAttributes(attributes());
  return recorded(span, run, describe);
}

async function recorded<T>(
  span: Span,
  run: () => Promise<T>,
  describe: (result: T, span: Span) => void,
): Promise<T> {
  try {
    const result = await context.with(trace.setSpan(context.active(), span), run);
    describe(result, span);
    return result;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === "string") span.setAttribute("warden.error_code", code);
    if (error instanceof LockTimeoutError) {
      span.setAttribute("warden.outcome", "timeout");
    } else {
      span.setAttribute("warden.outcome", "error");
      if (error instanceof Error) span.recordException(error);
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: error instanceof Error ? error.message : String(error),
      });
    }
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Runs one `renew` command under a single `warden.renew` span (the lease count and how
 * many the store refused), not one span per lease: renewals are the steady load.
 */
export function tracedRenew<T extends { results: readonly unknown[] }>(
  leases: number,
  run: () => Promise<T>,
): Promise<T> {
  return traced(
    "warden.renew",
    () => ({ "warden.lease_count": leases }),
    () => context.with(context.active().setValue(IN_RENEW, true), run),
    (reply, span) => {
      const refused = reply.results.filter(
        (result) => typeof result === "object" && result !== null && "error" in result,
      ).length;
      span.setAttributes({ "warden.outcome": "renewed", "warden.refused_count": refused });
    },
  );
}

/** True inside a `renew` command (its per-lease extends are covered by the command's span). */
export function inRenew(): boolean {
  return context.active().getValue(IN_RENEW) === true;
}

/** `{ traceId }` of the recording span in this context, for a log line; else nothing. */
export function traceFields(): { traceId?: string } {
  const span = trace.getActiveSpan();
  return span?.isRecording() ? { traceId: span.spanContext().traceId } : {};
}
