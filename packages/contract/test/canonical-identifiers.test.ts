import { describe, expect, it } from "vitest";
import { InvalidArgumentError, utf8Length, validateHolder, validateLockKey } from "../src/index.js";
import { acquireInputSchema, businessKeySchema, holderIdSchema } from "../src/wire/index.js";

const DECOMPOSED = "caf\u0065\u0301"; // "café" as e + combining acute
const COMPOSED = "caf\u00e9";

function refusal(run: () => unknown): InvalidArgumentError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidArgumentError);
    return error as InvalidArgumentError;
  }
  throw new Error("expected INVALID_ARGUMENT");
}

describe("identifiers have one canonical form (NFC)", () => {
  it("the engine's checks return business keys and holder ids NFC-normalized", () => {
    expect(validateLockKey({ resource: "r", businessKey: DECOMPOSED }).businessKey).toBe(COMPOSED);
    expect(validateHolder({ clientId: DECOMPOSED, ownerId: "o" })).toEqual({
      clientId: COMPOSED,
      ownerId: "o",
    });
    // ASCII and already-canonical values come back as the very same object.
    const key = { resource: "r", businessKey: "order-1" };
    expect(validateLockKey(key)).toBe(key);
  });

  it("the wire schemas normalize at the edge", () => {
    expect(businessKeySchema.parse(DECOMPOSED)).toBe(COMPOSED);
    expect(holderIdSchema.parse(DECOMPOSED)).toBe(COMPOSED);
    const input = acquireInputSchema.parse({
      resource: "r",
      businessKey: DECOMPOSED,
      ownerId: `worker-${DECOMPOSED}`,
    });
    expect(input.businessKey).toBe(COMPOSED);
    expect(input.ownerId).toBe(`worker-${COMPOSED}`);
  });

  it("measures the byte limit on the canonical form", () => {
    // 100 × "é" decomposed is 300 bytes, composed 200: within the 200-byte limit.
    const long = "e\u0301".repeat(100);
    expect(validateLockKey({ resource: "r", businessKey: long }).businessKey).toBe(
      "\u00e9".repeat(100),
    );
    expect(businessKeySchema.safeParse(long).success).toBe(true);
    expect(businessKeySchema.safeParse("\u00e9".repeat(101)).success).toBe(false);
  });
});

describe("identifiers refuse what would collapse or break logs", () => {
  const bad: ReadonlyArray<readonly [string, string]> = [
    ["lone high surrogate", "sur\ud800"],
    ["lone low surrogate", "sur\udfff"],
    ["reversed pair", "sur\udc00\ud800"],
    ["newline", "a\nb"],
    ["NUL", "a\u0000b"],
    ["C1 control (NEL)", "a\u0085b"],
    ["line separator", "a\u2028b"],
    ["brace", "a{b"],
    ["pipe", "a|b"],
  ];

  it.each(bad)("refuses a %s in business keys and holder ids, naming the field", (_, value) => {
    const key = refusal(() => validateLockKey({ resource: "r", businessKey: value }));
    expect(key.details.field).toBe("businessKey");
    expect(key.message).toBe(`businessKey: ${key.details.reason}`);
    const holder = refusal(() => validateHolder({ clientId: value, ownerId: "o" }));
    expect(holder.details.field).toBe("holder.clientId");
    expect(businessKeySchema.safeParse(value).success).toBe(false);
    expect(holderIdSchema.safeParse(value).success).toBe(false);
  });

  it("says a lone surrogate is not valid Unicode", () => {
    const error = refusal(() => validateLockKey({ resource: "r", businessKey: "sur\ud800" }));
    expect(error.details.reason).toMatch(/lone UTF-16 surrogate/);
    const parsed = businessKeySchema.safeParse("sur\udfff");
    expect(parsed.success ? "" : parsed.error.issues[0]?.message).toMatch(/lone UTF-16 surrogate/);
  });

  it("accepts well-formed text beyond the BMP", () => {
    expect(validateLockKey({ resource: "r", businessKey: "order-\u{1f600}" }).businessKey).toBe(
      "order-\u{1f600}",
    );
    expect(businessKeySchema.parse("order-\u{1f600}")).toBe("order-\u{1f600}");
  });
});

describe("utf8Length", () => {
  it("counts UTF-8 bytes like an encoder, without allocating", () => {
    for (const value of [
      "",
      "order-1",
      "caf\u00e9",
      "\u20ac",
      "\u{1f600}x",
      "a\ud800",
      "\udfffb",
    ]) {
      expect(utf8Length(value), JSON.stringify(value)).toBe(Buffer.byteLength(value, "utf8"));
    }
  });
});
