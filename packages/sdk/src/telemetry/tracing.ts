import {
  context,
  isSpanContextValid,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
} from "@opentelemetry/api";
import { SDK_VERSION } from "../version.js";

/*
 * OpenTelemetry spans of the SDK, through `@opentelemetry/api` only: without an
 * OpenTelemetry SDK installed by the application every span is a non-recording no-op and
 * nothing is injected into the lock protocol (docs/decisions/0145-opentelemetry-tracing.md).
 */

const tracer = trace.getTracer("@warden/sdk", SDK_VERSION);

/** How a traced lock operation ended (the `warden.outcome` attribute). */
export type SpanOutcome =
  | "granted"
  | "refused"
  | "timeout"
  | "released"
  | "extended"
  | "renewed"
  | "error";

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

/** The span attributes of a grant. */
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
 * Runs `run` under a client span `name` (its child spans and the commands it sends are
 * parented on it); `describe` adds the result's attributes and outcome. An error ends the
 * span with outcome `error` (or what `outcomeOfError` says) and its code. A `root` span
 * starts a trace of its own (background work, not the caller's). Without a recording span,
 * `run` runs as is.
 */
export function traced<T>(
  name: string,
  attributes: () => Attributes,
  run: () => Promise<T>,
  describe: (result: T, span: Span) => void,
  outcomeOfError: (error: unknown) => SpanOutcome = () => "error",
  root = false,
): Promise<T> {
  // Attributes are built only for a recording span (a sampler sees none at the start).
  const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, root });
  if (!span.isRecording()) return run();
  span.setAttributes(attributes());
  return recorded(span, run, describe, outcomeOfError);
}

async function recorded<T>(
  span: Span,
  run: () => Promise<T>,
  describe: (result: T, span: Span) => void,
  outcomeOfError: (error: unknown) => SpanOutcome,
): Promise<T> {
  try {
    const result = await context.with(trace.setSpan(context.active(), span), run);
    describe(result, span);
    return result;
  } catch (error) {
    endWithError(span, error, outcomeOfError(error));
    throw error;
  } finally {
    span.end();
  }
}

/** Marks a span as ended by `error`: outcome, the error's Warden code, and the exception. */
export function endWithError(span: Span, error: unknown, outcome: SpanOutcome): void {
  const code = (error as { code?: unknown } | null)?.code;
  span.setAttribute("warden.outcome", outcome);
  if (typeof code === "string") span.setAttribute("warden.error_code", code);
  if (outcome === "error") {
    if (error instanceof Error) span.recordException(error);
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
  }
}

/**
 * True when the active span is live (recording, not ended): a caller's operation, such as
 * `lock.extend()`. Background work (the watchdog's renewals) runs in the context its timer
 * was made in, whose span has ended by then.
 */
export function liveSpanActive(): boolean {
  return trace.getActiveSpan()?.isRecording() === true;
}

/**
 * The active trace context as W3C trace-context fields (`traceparent`, `tracestate`) for one
 * lock-protocol command, or undefined when there is none to pass on — always so without an
 * OpenTelemetry SDK, so nothing is added to the frame then.
 */
export function traceCarrier(): Record<string, string> | undefined {
  const active = context.active();
  const spanContext = trace.getSpanContext(active);
  if (!spanContext || !isSpanContextValid(spanContext)) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(active, carrier);
  return carrier.traceparent === undefined ? undefined : carrier;
}
