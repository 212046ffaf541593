import { describe, expect, test } from "vitest";
import { LeaseLostError, NotHolderError } from "@warden/core";
import { Lease } from "../src/lease/lease.js";
import type { LeaseBackend, LeaseFacts } from "../src/lease/lease-facts.js";
import { Watchdog } from "../src/lease/watchdog.js";
import { delay } from "./support/until.js";

const facts: LeaseFacts = {
  resource: "unit",
  businessKey: "k",
  ownerId: "o",
  lockId: "AAAAAAAAAAAAAAAAAAAAAA",
  fence: "1",
  tier: "redis",
};

describe("watchdog deadlines (monotonic, from when a renewal was SENT)", () => {
  test("a slow reply does not stretch the deadline: it counts from the renewal's send time", async () => {
    let calls = 0;
    let lost: { at: number; error: LeaseLostError } | null = null;
    const t0 = performance.now();
    const watchdog = new Watchdog(
      {
        lockId: facts.lockId,
        leaseMs: 300,
        nominalLeaseMs: 300,
        safetyMarginMs: 50,
        maxRenewals: null,
      },
      {
        renew: async () => {
          calls += 1;
          if (calls === 1) {
            await delay(120); // slow reply, sent at ~t0+100
            return { ttlMs: 300 };
          }
          throw new Error("store unreachable");
        },
        onLost: (error) => {
          lost = { at: performance.now() - t0, error };
        },
      },
    );
    watchdog.start(t0, 300);
    await delay(600);
    await watchdog.stop();
    expect(lost).not.toBeNull();
    const { at, error } = lost!;
    // sent at ~100 + ttl 300 - margin 50 = ~350; from the reply it would be ~470.
    expect(at).toBeGreaterThanOrEqual(340);
    expect(at).toBeLessThan(430);
    expect(error).toBeInstanceOf(LeaseLostError);
  });

  test("a refused renewal is a loss at once, with NotHolderError as its cause", async () => {
    let lost: LeaseLostError | null = null;
    const t0 = performance.now();
    const watchdog = new Watchdog(
      {
        lockId: facts.lockId,
        leaseMs: 3_000,
        nominalLeaseMs: 3_000,
        safetyMarginMs: 100,
        maxRenewals: null,
      },
      {
        renew: async () => {
          throw new NotHolderError(facts.lockId, "other-holder");
        },
        onLost: (error) => {
          lost = error;
        },
      },
    );
    watchdog.start(t0, 3_000);
    await delay(1_100);
    expect(lost).toBeInstanceOf(LeaseLostError);
    expect((lost as unknown as LeaseLostError).cause).toBeInstanceOf(NotHolderError);
    await watchdog.stop();
  });

  test("gives up after maxRenewals and reports the loss before the lease runs out", async () => {
    let renewals = 0;
    let lostAfter = 0;
    const t0 = performance.now();
    const watchdog = new Watchdog(
      {
        lockId: facts.lockId,
        leaseMs: 300,
        nominalLeaseMs: 300,
        safetyMarginMs: 50,
        maxRenewals: 2,
      },
      {
        renew: async () => {
          renewals += 1;
          return { ttlMs: 300 };
        },
        onLost: (error) => {
          lostAfter = performance.now() - t0;
          expect(error.message).toMatch(/2 renewals/);
        },
      },
    );
    watchdog.start(t0, 300);
    await delay(800);
    await watchdog.stop();
    expect(renewals).toBe(2);
    // Last renewal sent at ~200: lease to ~500 at the store, loss declared at ~450.
    expect(lostAfter).toBeGreaterThanOrEqual(440);
    expect(lostAfter).toBeLessThan(500);
  });

  test("an explicit shorter extend shortens the deadline", async () => {
    let lostAfter = 0;
    const t0 = performance.now();
    const watchdog = new Watchdog(
      {
        lockId: facts.lockId,
        leaseMs: 5_000,
        nominalLeaseMs: 5_000,
        safetyMarginMs: 50,
        maxRenewals: 1,
      },
      {
        renew: async (leaseMs) => ({ ttlMs: leaseMs ?? 5_000 }),
        onLost: () => {
          lostAfter = performance.now() - t0;
        },
      },
    );
    watchdog.start(t0, 5_000);
    await watchdog.renewNow(200);
    await delay(400);
    await watchdog.stop();
    expect(lostAfter).toBeGreaterThan(100);
    expect(lostAfter).toBeLessThan(300);
  });
});

describe("release ordering (seed 001 §3.2)", () => {
  test("the watchdog stops before the release is sent; a renewal in flight settles first and none follows", async () => {
    const events: string[] = [];
    const backend: LeaseBackend = {
      kind: "remote",
      extend: async () => {
        events.push("renew:start");
        await delay(150);
        events.push("renew:end");
        return { ttlMs: 300, expiresAt: Date.now() + 300 };
      },
      release: async () => {
        events.push("release");
      },
    };
    const lease = new Lease(
      facts,
      {
        sentAt: performance.now(),
        ttlMs: 300,
        expiresAt: Date.now() + 300,
        leaseMs: 300,
        maxRenewals: null,
        safetyMarginMs: 50,
      },
      backend,
      { ended: () => undefined, releasing: () => true },
    );
    const handle = { onLeaseLost: () => undefined };
    lease.attach(handle);
    // Let the first renewal (at ~100 ms) be in flight, then release.
    await delay(130);
    expect(events).toEqual(["renew:start"]);
    await lease.detach(handle);
    expect(events).toEqual(["renew:start", "renew:end", "release"]);
    await delay(400);
    expect(events).toEqual(["renew:start", "renew:end", "release"]);
    expect(lease.status).toBe("released");
  });

  test("a re-entered lease is released at the store only when its last handle lets go", async () => {
    const events: string[] = [];
    const backend: LeaseBackend = {
      kind: "remote",
      extend: async () => ({ ttlMs: 10_000, expiresAt: Date.now() + 10_000 }),
      release: async () => {
        events.push("release");
      },
    };
    const lease = new Lease(
      facts,
      {
        sentAt: performance.now(),
        ttlMs: 10_000,
        expiresAt: Date.now(),
        leaseMs: 10_000,
        maxRenewals: null,
        safetyMarginMs: 50,
      },
      backend,
      { ended: () => undefined, releasing: () => true },
    );
    const outer = { onLeaseLost: () => undefined };
    const inner = { onLeaseLost: () => undefined };
    lease.attach(outer);
    lease.attach(inner);
    await lease.detach(inner);
    expect(events).toEqual([]);
    expect(lease.status).toBe("held");
    await lease.detach(outer);
    await lease.detach(outer);
    expect(events).toEqual(["release"]);
  });
});
