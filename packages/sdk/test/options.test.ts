import { describe, expect, test } from "vitest";
import { TRPCClientError } from "@trpc/client";
import {
  createWarden,
  InvalidArgumentError,
  LockTimeoutError,
  type LockUnavailableError,
  NotHolderError,
  UnknownResourceError,
  WARDEN_DEFAULTS,
} from "../src/index.js";
import { fullJitterDelayMs } from "../src/time/full-jitter.js";
import { classifyFailure, failureToError } from "../src/transport/map-error.js";
import { ReplyLostError, ServerUnreachableError } from "../src/transport/transport-errors.js";

describe("createWarden validates its options in the constructor", () => {
  const base = { url: "http://127.0.0.1:1", apiKey: "wdn_test" };

  test.each([
    [{ ...base, url: "" }, /^url: /],
    [{ ...base, url: "ftp://x" }, /^url: must use http, https, ws or wss/],
    [{ ...base, apiKey: " " }, /^apiKey: /],
    [{ ...base, requestTimeoutMs: 5 }, /^requestTimeoutMs: must be between 100 and 600000 ms/],
    [
      { ...base, heartbeatIntervalMs: 2.5 },
      /^heartbeatIntervalMs: must be an integer number of milliseconds/,
    ],
    [
      { ...base, reconnectBaseDelayMs: 500, reconnectMaxDelayMs: 100 },
      /^reconnectMaxDelayMs: must be at least/,
    ],
    [{ ...base, clientId: "a|b" }, /^clientId: /],
    [{ ...base, resources: ["no spaces"] }, /^resource: /],
  ])("%o is refused", (options, message) => {
    expect(() => createWarden(options as never)).toThrow(InvalidArgumentError);
    expect(() => createWarden(options as never)).toThrow(message);
  });

  test("defaults live in one frozen object", () => {
    expect(Object.isFrozen(WARDEN_DEFAULTS)).toBe(true);
    expect(WARDEN_DEFAULTS.requestTimeoutMs).toBe(5_000);
  });

  test("acquire options are checked before anything is sent", async () => {
    const warden = createWarden(base);
    await expect(warden.acquire("r", "k", { leaseMs: 0 })).rejects.toThrow(/^leaseMs: /);
    await expect(warden.acquire("r", "k", { leaseMs: 60_001 })).rejects.toThrow(/^leaseMs: .* ms/);
    await expect(warden.acquire("r", "k", { waitMs: 300_001 })).rejects.toThrow(/^waitMs: /);
    await expect(warden.acquire("r", "k", { maxHoldMs: 1.5 })).rejects.toThrow(/^maxHoldMs: /);
    await expect(warden.acquire("bad name", "k")).rejects.toThrow(/^resource: /);
    await expect(warden.acquire("r", "")).rejects.toThrow(/^businessKey: /);
    await warden.close();
  });
});

describe("backoff", () => {
  test("full jitter stays within [0, min(cap, base * 2^attempt))", () => {
    expect(fullJitterDelayMs(0, 100, 5_000, () => 0.999)).toBe(99);
    expect(fullJitterDelayMs(3, 100, 5_000, () => 0.999)).toBe(799);
    expect(fullJitterDelayMs(20, 100, 5_000, () => 0.999)).toBe(4_995);
    expect(fullJitterDelayMs(5, 100, 5_000, () => 0)).toBe(0);
  });
});

describe("server errors map to the typed errors of @warden/core in one place", () => {
  function serverError(message: string, data: Record<string, unknown>) {
    return TRPCClientError.from({ error: { message, code: -32000, data } });
  }

  test("Warden codes become typed errors", () => {
    const ctx = { operation: "acquire", resource: "r", lockId: "L", waitMs: 250 };
    const unknown = classifyFailure(
      serverError('unknown resource "r"', { code: "NOT_FOUND", wardenCode: "UNKNOWN_RESOURCE" }),
      ctx,
    );
    expect(unknown.kind === "answer" && unknown.error).toBeInstanceOf(UnknownResourceError);
    const timeout = classifyFailure(
      serverError("x", { code: "TIMEOUT", wardenCode: "LOCK_TIMEOUT" }),
      ctx,
    );
    expect(timeout.kind === "answer" && timeout.error).toEqual(new LockTimeoutError(250));
    const holder = classifyFailure(
      serverError("lock L no longer holds this key", {
        code: "PRECONDITION_FAILED",
        wardenCode: "NOT_HOLDER",
        details: { lockId: "L", reason: "other-holder" },
      }),
      ctx,
    );
    expect(holder.kind === "answer" && holder.error).toBeInstanceOf(NotHolderError);
    expect(holder.kind === "answer" && (holder.error as NotHolderError).reason).toBe(
      "other-holder",
    );
    const invalid = classifyFailure(
      serverError("input", {
        code: "BAD_REQUEST",
        wardenCode: null,
        fieldErrors: { leaseMs: ["must be at most 60000 ms"] },
      }),
      ctx,
    );
    expect(invalid.kind === "answer" && invalid.error.message).toBe(
      "leaseMs: must be at most 60000 ms",
    );
  });

  test("no definite answer is an unknown outcome; nothing sent is not", () => {
    const ctx = { operation: "acquire" };
    expect(classifyFailure(new ReplyLostError("no reply"), ctx).kind).toBe("unknown");
    expect(classifyFailure(new ServerUnreachableError("down"), ctx).kind).toBe("not-sent");
    expect(
      classifyFailure(serverError("boom", { code: "INTERNAL_SERVER_ERROR", wardenCode: null }), ctx)
        .kind,
    ).toBe("unknown");
    expect(
      classifyFailure(
        serverError("x", { code: "SERVICE_UNAVAILABLE", wardenCode: "OUTCOME_UNKNOWN" }),
        ctx,
      ).kind,
    ).toBe("unknown");
    expect(
      classifyFailure(
        serverError("x", { code: "CLIENT_CLOSED_REQUEST", wardenCode: "WAIT_CANCELLED" }),
        ctx,
      ).kind,
    ).toBe("wait-cancelled");
  });

  test("every refusal that surfaces as LockUnavailableError says why in `reason`", () => {
    const ctx = { operation: "acquire" };
    const reasonOf = (failure: ReturnType<typeof classifyFailure>) =>
      (failureToError(failure, ctx) as LockUnavailableError).reason;
    const refusal = (wardenCode: string, details: Record<string, unknown>) =>
      classifyFailure(serverError("x", { code: "SERVICE_UNAVAILABLE", wardenCode, details }), ctx);
    expect(
      reasonOf(refusal("LOCK_UNAVAILABLE", { retryAfterMs: null, reason: "tier-change" })),
    ).toBe("tier-change");
    expect(
      failureToError(refusal("LOCK_UNAVAILABLE", { retryAfterMs: 10, reason: "contended" }), ctx),
    ).toMatchObject({ reason: "contended", retryAfterMs: 10 });
    // A server that predates `reason` reads as the generic one.
    expect(reasonOf(refusal("LOCK_UNAVAILABLE", { retryAfterMs: null }))).toBe("store-unavailable");
    expect(reasonOf(refusal("REPLICATION_TIMEOUT", { required: 1, acknowledged: 0 }))).toBe(
      "replicas",
    );
    const quota = refusal("QUOTA_EXCEEDED", { retryAfterMs: 40 });
    expect(failureToError(quota, ctx)).toMatchObject({ reason: "quota", retryAfterMs: 40 });
    expect(reasonOf(classifyFailure(new ServerUnreachableError("down"), ctx))).toBe(
      "server-unreachable",
    );
    expect(
      reasonOf(
        classifyFailure(
          serverError("x", { code: "CLIENT_CLOSED_REQUEST", wardenCode: "WAIT_CANCELLED" }),
          ctx,
        ),
      ),
    ).toBe("wait-withdrawn");
  });
});
