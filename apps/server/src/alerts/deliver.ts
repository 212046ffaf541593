import type { DeliveryOutcome } from "./alert-metrics.js";
import type { WebhookConfig } from "./webhook-config.js";

/** Bounded retries with exponential backoff. */
export interface RetryPolicy {
  /** Attempts in all, the first included. @defaultValue 5 */
  readonly attempts: number;
  /** Wait before the first retry, doubled each time, in ms. @defaultValue 1 000 */
  readonly baseMs: number;
  /** Longest wait between attempts, in ms. @defaultValue 30 000 */
  readonly maxMs: number;
  /** One attempt's time limit, in ms. @defaultValue 5 000 */
  readonly timeoutMs: number;
}

export const RETRY_DEFAULTS: RetryPolicy = Object.freeze({
  attempts: 5,
  baseMs: 1_000,
  maxMs: 30_000,
  timeoutMs: 5_000,
});

/** How one notification ended. */
export interface DeliveryResult {
  readonly delivered: boolean;
  readonly attempts: number;
  /** The last failure, for the console; null when delivered. */
  readonly error: string | null;
}

class PermanentError extends Error {}

function describe(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause).slice(0, 500);
  // fetch reports "fetch failed" and keeps the reason (ECONNREFUSED, ...) in its cause.
  const inner = (cause as { cause?: { code?: unknown; message?: unknown } }).cause;
  const detail =
    typeof inner?.code === "string"
      ? inner.code
      : typeof inner?.message === "string"
        ? inner.message
        : null;
  return (detail === null ? cause.message : `${cause.message}: ${detail}`).slice(0, 500);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

async function postOnce(hook: WebhookConfig, body: string, timeoutMs: number, signal: AbortSignal) {
  const response = await fetch(hook.url, {
    method: "POST",
    headers: { "content-type": "application/json", ...hook.headers },
    body,
    signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    redirect: "error",
  });
  // The body is not needed; reading it frees the connection.
  await response.arrayBuffer().catch(() => undefined);
  if (response.ok) return;
  const message = `HTTP ${response.status}`;
  // A receiver that refuses the request itself will refuse it again: no retry.
  if (response.status >= 400 && response.status < 500 && ![408, 425, 429].includes(response.status))
    throw new PermanentError(message);
  throw new Error(message);
}

/**
 * POSTs `body` to `hook`, retrying network errors, timeouts, 408/425/429 and 5xx with
 * exponential backoff (jittered) up to `retry.attempts`; other 4xx fail at once. Each
 * attempt is reported to `count`. Stops quietly (not counted as failed) when `signal`
 * aborts — the evaluator lost its lock and the next one takes over.
 */
export async function deliver(
  hook: WebhookConfig,
  body: unknown,
  retry: RetryPolicy,
  signal: AbortSignal,
  count: (outcome: DeliveryOutcome) => void,
): Promise<DeliveryResult | null> {
  const text = JSON.stringify(body);
  let error = "not attempted";
  for (let attempt = 1; attempt <= retry.attempts; attempt += 1) {
    if (signal.aborted) return null;
    try {
      await postOnce(hook, text, retry.timeoutMs, signal);
      count("delivered");
      return { delivered: true, attempts: attempt, error: null };
    } catch (cause) {
      if (signal.aborted) return null;
      error = describe(cause);
      const last = attempt === retry.attempts || cause instanceof PermanentError;
      count(last ? "failed" : "retried");
      if (last) return { delivered: false, attempts: attempt, error };
      const backoff = Math.min(retry.maxMs, retry.baseMs * 2 ** (attempt - 1));
      await sleep(backoff / 2 + Math.random() * (backoff / 2), signal);
    }
  }
  return { delivered: false, attempts: retry.attempts, error };
}
