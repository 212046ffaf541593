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
        leaseMs: 1_500,
        nominalLeaseMs: 1_500,
        safetyMarginMs: 100,
        maxRenewals: null,
      },
      {
        renew: async () => {
          calls += 1;
          if (calls === 1) {
            await delay(600); // sent at ~500, answered at ~1100
            return { ttlMs: 1_500 };
          }
          throw new Error("store unreachable");
        },
        onLost: (error) => {
          lost = { at: performance.now() - t0, error };
        },
      },
    );
    watchdog.start(t0, 1_500);
    await delay(2_600);
    await watchdog.stop();
    expect(lost).not.toBeNull();
    const { at, error } = lost!;
    // From the send: ~500 + 1500 - 100 = ~1900. From the reply it would be ~2500.
    expect(at).toBeGreaterThanOrEqual(1_890);
    expect(at).toBeLessThan(2_300);
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
        leaseMs: 1_500,
        nominalLeaseMs: 1_500,
        safetyMarginMs: 100,
        maxRenewals: 2,
      },
      {
        renew: async () => {
          renewals += 1;
          return { ttlMs: 1_500 };
        },
        onLost: (error) => {
          lostAfter = performance.now() - t0;
          expect(error.message).toMatch(/2 renewals/);
        },
      },
    );
    watchdog.start(t0, 1_500);
    await delay(2_800);
    await watchdog.stop();
    expect(renewals).toBe(2);
    // Last renewal sent at ~1000: the store's lease ends at ~2500, the loss is declared at ~2400.
    expect(lostAfter).toBeGreaterThanOrEqual(2_390);
    expect(lostAfter).toBeLessThan(2_500);
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
    // ~150 ms instead of ~4 950 ms.
    expect(lostAfter).toBeGreaterThan(100);
    expect(lostAfter).toBeLessThan(1_000);
  });
});

describe("release ordering: the watchdog stops before the release", () => {
  test("the watchdog stops before the release is sent; a renewal in flight settles first and none follows", async () => {
    const events: string[] = [];
    const backend: LeaseBackend = {
      kind: "remote",
      extend: async () => {
        events.push("renew:start");
        await delay(300);
        events.push("renew:end");
        return { ttlMs: 900, expiresAt: Date.now() + 900 };
      },
      release: async () => {
        events.push("release");
      },
    };
    const lease = new Lease(
      facts,
      {
        sentAt: performance.now(),
        ttlMs: 900,
        expiresAt: Date.now() + 900,
        leaseMs: 900,
        maxRenewals: null,
        safetyMarginMs: 50,
      },
      backend,
      { ended: () => undefined, releasing: () => true },
    );
    const handle = { onLeaseLost: () => undefined };
    lease.attach(handle);
    // Let the first renewal (sent at ~300 ms, answered at ~600 ms) be in flight, then release.
    await delay(420);
    expect(events).toEqual(["renew:start"]);
    await lease.detach(handle);
    expect(events).toEqual(["renew:start", "renew:end", "release"]);
    await delay(700);
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
