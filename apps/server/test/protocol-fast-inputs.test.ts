import { acquireInputSchema, extendInputSchema, releaseInputSchema } from "@warden/contract/wire";
import { describe, expect, it } from "vitest";
import {
  plainAcquire,
  plainExtend,
  plainRelease,
  plainSemaphoreAcquire,
} from "../src/protocol/fast-inputs.js";
import { MAX_SEMAPHORE_PERMITS } from "../src/schemas/resource-policy.js";
import {
  rwAcquireInputSchema,
  rwExtendInputSchema,
  rwReleaseInputSchema,
} from "../src/schemas/rwlock.js";
import {
  semaphoreAcquireInputSchema,
  semaphoreExtendInputSchema,
  semaphoreReleaseInputSchema,
} from "../src/schemas/semaphore.js";

const LOCK_ID = "AbCdEfGhIjKlMnOpQrStUv";

const texts = [
  "k",
  "order-42",
  "a b~c",
  "x".repeat(128),
  "x".repeat(129),
  "x".repeat(200),
  "x".repeat(201),
  "",
  "a{b",
  "a|b",
  "a}b",
  "tab\there",
  "new\nline",
  "\u007f",
  "é",
  "e\u0301",
  "\u2028",
  "\ud800",
  "😀",
];
const resources = ["res:a", "order.settle", "-bad", "", "a b", "r".repeat(128), "r".repeat(129)];
const leases = [undefined, 0, 1, 1.5, 60_000, 60_001, -1, Number.NaN, "5", null];
const waits = [undefined, 0, 10, 300_000, 300_001, -1, 2.5];
const tiers = ["redis", "mysql", "local", "disk", undefined];
const permitCounts = [
  undefined,
  1,
  2,
  MAX_SEMAPHORE_PERMITS,
  MAX_SEMAPHORE_PERMITS + 1,
  0,
  -1,
  1.5,
  "2",
  null,
];
const semaphoreAcquire = (raw: unknown) => plainSemaphoreAcquire(raw, MAX_SEMAPHORE_PERMITS);

/** The fast path either declines or returns exactly what the contract's schema returns. */
function agrees<T>(
  fast: (raw: unknown) => T | null,
  schema: { safeParse(raw: unknown): { success: boolean; data?: unknown } },
  raw: unknown,
): boolean {
  const plain = fast(raw);
  if (plain === null) return true;
  const parsed = schema.safeParse(raw);
  expect(parsed.success, JSON.stringify(raw)).toBe(true);
  expect(plain, JSON.stringify(raw)).toEqual(parsed.data);
  return false;
}

describe("the protocol's fast input checks", () => {
  it("accept only what the contract accepts, with the schema's exact output", () => {
    let accepted = 0;
    let acceptedPermits = 0;
    let round = 0;
    for (const resource of resources)
      for (const text of texts)
        for (const leaseMs of leases) {
          const waitMs = waits[round++ % waits.length];
          const acquire = { resource, businessKey: text, ownerId: text, leaseMs, waitMs, extra: 1 };
          if (!agrees(plainAcquire, acquireInputSchema, acquire)) accepted += 1;
          agrees(plainAcquire, rwAcquireInputSchema, acquire);
          const permits = permitCounts[round % permitCounts.length];
          if (!agrees(semaphoreAcquire, semaphoreAcquireInputSchema, { ...acquire, permits })) {
            acceptedPermits += 1;
          }
          for (const tier of tiers) {
            const grant = { resource, businessKey: text, lockId: LOCK_ID, tier, leaseMs };
            agrees(plainRelease, releaseInputSchema, grant);
            agrees(plainExtend, extendInputSchema, grant);
            agrees(plainRelease, semaphoreReleaseInputSchema, grant);
            agrees(plainExtend, semaphoreExtendInputSchema, grant);
            agrees(plainRelease, rwReleaseInputSchema, grant);
            agrees(plainExtend, rwExtendInputSchema, grant);
          }
        }
    expect(accepted).toBeGreaterThan(15);
    expect(acceptedPermits).toBeGreaterThan(5);
  });

  it("take a semaphore acquire's permits only as an integer in range", () => {
    const base = { resource: "res:a", businessKey: "k1", ownerId: "o" };
    expect(semaphoreAcquire({ ...base, permits: 3 })).toEqual({ ...base, permits: 3 });
    expect(semaphoreAcquire(base)).toEqual(base);
    for (const permits of [0, -1, 1.5, "2", null, MAX_SEMAPHORE_PERMITS + 1]) {
      expect(semaphoreAcquire({ ...base, permits })).toBeNull();
      expect(semaphoreAcquireInputSchema.safeParse({ ...base, permits }).success).toBe(false);
    }
  });

  it("take the common inputs without the schema", () => {
    expect(
      plainAcquire({ resource: "res:a", businessKey: "k1", ownerId: "o", leaseMs: 5_000 }),
    ).toEqual({
      resource: "res:a",
      businessKey: "k1",
      ownerId: "o",
      leaseMs: 5_000,
    });
    expect(
      plainRelease({ resource: "res:a", businessKey: "k1", lockId: LOCK_ID, tier: "redis" }),
    ).not.toBeNull();
    for (const bad of [
      null,
      [],
      "x",
      { resource: "res:a" },
      { resource: "res:a", businessKey: "é", ownerId: "o" },
    ]) {
      expect(plainAcquire(bad)).toBeNull();
    }
    expect(
      plainRelease({ resource: "res:a", businessKey: "k", lockId: "short", tier: "redis" }),
    ).toBeNull();
  });
});
