import { describe, expect, it } from "vitest";
import {
  ConflictError,
  ErrorCode,
  ForbiddenError,
  InvalidArgumentError,
  LeaseLostError,
  LockTimeoutError,
  LOCK_UNAVAILABLE_REASONS,
  LockUnavailableError,
  LoginThrottledError,
  NotHolderError,
  OutcomeUnknownError,
  QuotaExceededError,
  ReplicationTimeoutError,
  StaleFenceError,
  UnauthorizedError,
  UnknownResourceError,
  WaitCancelledError,
  type WardenError,
  fromWire,
  toWire,
} from "../src/index.js";

const LOCK_ID = "AAAAAAAAAAAAAAAAAAAAAA";

// One instance of every code, with non-default details.
const SAMPLES: readonly WardenError[] = [
  new InvalidArgumentError("leaseMs", "must be at most 30000 ms for order:settle"),
  new UnknownResourceError("order:settle"),
  new NotHolderError(LOCK_ID, "other-holder"),
  new LockTimeoutError(2_500),
  new LockUnavailableError("no tier can grant with exclusion now", {
    retryAfterMs: 750,
    reason: "fail-closed",
  }),
  new LeaseLostError(LOCK_ID, "renewal limit reached"),
  new OutcomeUnknownError(LOCK_ID, "extend"),
  new ReplicationTimeoutError(2, 1),
  new UnauthorizedError("unknown or revoked API key"),
  new StaleFenceError("41", "42"),
  new ForbiddenError("this call needs the operator role"),
  new QuotaExceededError(125),
  new ConflictError('resource "x" already exists'),
  new LoginThrottledError(30_000),
  new WaitCancelledError("wait-0001"),
];

describe("typed errors cross the wire as code + details", () => {
  it("has a sample for every code", () => {
    expect(new Set(SAMPLES.map((error) => error.code))).toEqual(new Set(Object.values(ErrorCode)));
  });

  it.each(SAMPLES.map((error) => [error.code, error] as const))(
    "%s comes back as the same class with the same details and message",
    (_, error) => {
      const wire = toWire(error);
      expect(wire).not.toBeNull();
      // What a JSON transport does to it.
      const sent = JSON.parse(JSON.stringify(wire)) as {
        code: string;
        details: unknown;
        message: string;
      };
      const back = fromWire(sent.code, sent.details, sent.message);
      expect(back).toBeInstanceOf(error.constructor);
      expect(back?.code).toBe(error.code);
      expect(back?.details).toEqual(error.details);
      expect(back?.message).toBe(error.message);
    },
  );

  it("keeps the facts callers branch on as fields and details", () => {
    expect(new InvalidArgumentError("holder.ownerId", "must not be empty").details).toEqual({
      field: "holder.ownerId",
      reason: "must not be empty",
    });
    expect(new NotHolderError(LOCK_ID, "expired").details).toEqual({
      lockId: LOCK_ID,
      reason: "expired",
    });
    expect(new QuotaExceededError(90).details).toEqual({ retryAfterMs: 90 });
    expect(new LockTimeoutError(10).details).toEqual({ waitMs: 10 });
    expect(new LockUnavailableError("m").details).toEqual({
      retryAfterMs: null,
      reason: "store-unavailable",
    });
    for (const reason of LOCK_UNAVAILABLE_REASONS) {
      const back = fromWire("LOCK_UNAVAILABLE", { retryAfterMs: null, reason }, "m");
      expect((back as LockUnavailableError).reason).toBe(reason);
    }
    expect(new OutcomeUnknownError(null, "acquire").details).toEqual({
      lockId: null,
      operation: "acquire",
    });
  });

  it("carries `contended` across the wire, with its retryAfterMs", () => {
    expect(LOCK_UNAVAILABLE_REASONS).toContain("contended");
    const error = new LockUnavailableError("MySQL tier: release deadlocked on every attempt", {
      retryAfterMs: 10,
      reason: "contended",
    });
    const sent = JSON.parse(JSON.stringify(toWire(error))) as {
      code: string;
      details: unknown;
      message: string;
    };
    expect(sent.details).toEqual({ retryAfterMs: 10, reason: "contended" });
    const back = fromWire(sent.code, sent.details, sent.message);
    expect(back).toBeInstanceOf(LockUnavailableError);
    expect((back as LockUnavailableError).reason).toBe("contended");
    expect((back as LockUnavailableError).retryAfterMs).toBe(10);
  });

  it("reads a reason it does not know (one added after this client) as store-unavailable", () => {
    const later = fromWire("LOCK_UNAVAILABLE", { retryAfterMs: 10, reason: "overheated" }, "m");
    expect(later).toBeInstanceOf(LockUnavailableError);
    expect(later?.details).toEqual({ retryAfterMs: 10, reason: "store-unavailable" });
  });

  it("never leaks a non-Warden error", () => {
    expect(toWire(new Error("ER_ACCESS_DENIED_ERROR: password for root"))).toBeNull();
    expect(toWire("boom")).toBeNull();
  });

  it("rebuilds a typed error from missing or mistyped details, and refuses unknown codes", () => {
    const notHolder = fromWire("NOT_HOLDER", { lockId: 7, reason: "bogus" }, "m");
    expect(notHolder).toBeInstanceOf(NotHolderError);
    expect(notHolder?.details).toEqual({ lockId: "unknown", reason: "expired" });
    const timeout = fromWire("LOCK_TIMEOUT", null, "m");
    expect(timeout?.details).toEqual({ waitMs: 0 });
    const quota = fromWire("QUOTA_EXCEEDED", { retryAfterMs: -5 }, "slow down");
    expect(quota?.details).toEqual({ retryAfterMs: 1_000 });
    const unavailable = fromWire("LOCK_UNAVAILABLE", { retryAfterMs: "soon" }, "m");
    expect(unavailable?.details).toEqual({ retryAfterMs: null, reason: "store-unavailable" });
    const unheard = fromWire("LOCK_UNAVAILABLE", { retryAfterMs: 5, reason: "gremlins" }, "m");
    expect(unheard?.details).toEqual({ retryAfterMs: 5, reason: "store-unavailable" });
    expect(fromWire("TEAPOT", {}, "m")).toBeNull();
    expect(fromWire(undefined, {}, "m")).toBeNull();
  });
});

describe("messages say what happened and what to do", () => {
  it("an acquire whose reply was lost does not read 'lock unknown is unknown'", () => {
    const message = new OutcomeUnknownError(null, "acquire").message;
    expect(message).not.toMatch(/unknown is unknown/);
    expect(message).toMatch(/may or may not have been granted/);
    expect(message).toMatch(/acquire again/);
    expect(new OutcomeUnknownError("unknown", "acquire").details.lockId).toBeNull();
  });

  it("a refused release or extend says the lock is gone and to acquire again", () => {
    expect(new NotHolderError(LOCK_ID, "expired").message).toMatch(/no longer held.*acquire/);
    expect(new NotHolderError(LOCK_ID, "other-holder").message).toMatch(/another holder/);
  });
});
