import { describe, expect, it } from "vitest";
import { errorInfo, isRetryable, isUnauthorized } from "./trpc-error";

class FakeClientError extends Error {
  constructor(
    message: string,
    readonly data: unknown,
  ) {
    super(message);
  }
}

describe("errorInfo", () => {
  it("reads the code and field errors the server's formatter adds", () => {
    const error = new FakeClientError("bad input", {
      code: "BAD_REQUEST",
      fieldErrors: { name: ["taken"] },
    });
    expect(errorInfo(error)).toEqual({
      code: "BAD_REQUEST",
      message: "bad input",
      fieldErrors: { name: ["taken"] },
      wardenCode: null,
      details: null,
    });
    expect(isRetryable(error)).toBe(false);
  });

  it("reads Warden's code and typed details", () => {
    const error = new FakeClientError("tenantId: name the owning tenant", {
      code: "BAD_REQUEST",
      wardenCode: "INVALID_ARGUMENT",
      details: { field: "tenantId", reason: "name the owning tenant" },
    });
    expect(errorInfo(error)).toMatchObject({
      wardenCode: "INVALID_ARGUMENT",
      details: { field: "tenantId", reason: "name the owning tenant" },
    });
  });

  it("treats a network failure as retryable and not as a logout", () => {
    const error = new TypeError("fetch failed");
    expect(errorInfo(error).code).toBeNull();
    expect(isUnauthorized(error)).toBe(false);
    expect(isRetryable(error)).toBe(true);
  });

  it("recognises an expired session", () => {
    expect(isUnauthorized(new FakeClientError("log in", { code: "UNAUTHORIZED" }))).toBe(true);
  });
});
