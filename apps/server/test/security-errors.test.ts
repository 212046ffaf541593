import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/log/logger.js";
import { expectCode } from "./support/expect-trpc.js";
import {
  registerResource,
  startHarness,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";

// Issue 18, findings 7 and 8: bad input is a typed 400 without internals, and stats are
// per tenant.

let h: Harness;
let a: TenantHandle;
let b: TenantHandle;
let resourceA: string;
let resourceB: string;

beforeAll(async () => {
  h = await startHarness();
  a = await h.tenant();
  b = await h.tenant();
  resourceA = await registerResource(a);
  resourceB = await registerResource(b);
});
afterAll(() => h?.close());

const INTERNALS = /ERR |prisma|invalid `|datetime|Invalid time value|sql|redis/i;

describe("no 500 for bad input", () => {
  it("holder.list refuses a cursor the store cannot read with BAD_REQUEST", async () => {
    for (const cursor of [
      "0:99999999999999999999:0",
      "0:18446744073709551616:0",
      "not-a-cursor",
      "9".repeat(40),
    ]) {
      const error = await expectCode(
        a.caller().holder.list({ resource: resourceA, cursor }),
        "BAD_REQUEST",
      );
      expect(error.message).not.toMatch(INTERNALS);
    }
    // A real cursor still pages.
    await a.caller().holder.list({ resource: resourceA, cursor: "0:0:0" });
  });

  it("event.search refuses cursors and instants beyond year 9999 with BAD_REQUEST", async () => {
    for (const input of [
      { cursor: "9999999999999999_x" },
      { cursor: "999999999999999_0123" },
      { cursor: "'; drop table lock_event; --" },
    ]) {
      const error = await expectCode(a.caller().event.search(input), "BAD_REQUEST");
      expect(error.message).not.toMatch(INTERNALS);
    }
    for (const input of [{ fromMs: 8_640_000_000_000_000 }, { toMs: 8_640_000_000_000_000 }]) {
      const outcome = await a
        .caller()
        .event.search(input)
        .then(
          () => null,
          (error: unknown) => error as { code: string; message: string },
        );
      // Either an empty answer or a typed 400; never a 500 with the database's words.
      if (outcome !== null) {
        expect(outcome.code).toBe("BAD_REQUEST");
        expect(outcome.message).not.toMatch(INTERNALS);
      }
    }
  });
});

describe("per-tenant stats", () => {
  it("stats.holdTimes {} with A's key has none of B's samples", async () => {
    for (let i = 0; i < 5; i += 1) {
      const grant = await b
        .caller()
        .lock.acquire({ resource: resourceB, businessKey: `k${i}`, ownerId: "o" });
      if (!grant.granted) throw new Error("expected a grant");
      await b.caller().lock.release({
        resource: resourceB,
        businessKey: `k${i}`,
        lockId: grant.lockId,
        tier: grant.tier,
      });
    }
    const seenByB = await b.caller().stats.holdTimes({ resource: resourceB });
    expect(seenByB.samples).toBeGreaterThanOrEqual(5);
    const seenByA = await a.caller().stats.holdTimes({});
    expect(seenByA.samples).toBe(0);
    expect(seenByA.maxMs).toBeNull();
    await expectCode(a.caller().stats.holdTimes({ resource: resourceB }), "NOT_FOUND");
    // An operator still sees the fleet.
    const operator = await h.operator("viewer");
    expect((await operator.caller().stats.holdTimes({})).samples).toBeGreaterThanOrEqual(5);
  });
});

describe("logs", () => {
  it("writes a client-chosen value with control characters escaped, on one line", () => {
    const lines: string[] = [];
    const logger = createLogger("info", "test", { write: (line: string) => lines.push(line) });
    const forged = "c1\nINFO forged\u0085next\u2028line\u001b[2J\u007f";
    logger.info({ clientId: forged, nested: { host: forged } }, `heartbeat from ${forged}`);
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line.trimEnd().split(/[\n\r\u0085\u2028\u2029]/)).toHaveLength(1);
    // eslint-disable-next-line no-control-regex
    expect(line).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(line).toContain("\\u0085");
    expect(line).toContain("\\u2028");
  });
});
