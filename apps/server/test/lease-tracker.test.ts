import type { LockEvent } from "@warden/core";
import { describe, expect, it } from "vitest";
import { LeaseTracker } from "../src/stats/lease-tracker.js";

const key = { resource: "payout.settle", businessKey: "order-1" };
const holder = { clientId: "c1", ownerId: "o1" };

function grant(at: number, reentry: number): LockEvent {
  return {
    ...key,
    type: "grant",
    tier: "redis",
    at,
    lockId: "lock-1",
    fence: "7",
    holder,
    leaseMs: 30_000,
    reentry,
    grantedAt: 1_000,
    renewals: 0,
  };
}

describe("LeaseTracker", () => {
  it("keeps a live lease whose re-entry too few replicas acknowledged (only the entry was undone)", () => {
    const tracker = new LeaseTracker();
    tracker.observe(grant(1_000, 1));
    const undone = tracker.observe({
      ...key,
      type: "replication-timeout",
      tier: "redis",
      at: 2_000,
      lockId: "lock-1",
      required: 1,
      acknowledged: 0,
    });
    expect(undone.lease?.lockId).toBe("lock-1");
    expect(tracker.find(key, "lock-1")).toMatchObject({ lockId: "lock-1", fence: "7" });
    expect(tracker.countsByResource().get(key.resource)).toBe(1);
    // Its release later is the hold's end, timed from the grant.
    const released = tracker.observe({
      ...key,
      type: "release",
      tier: "redis",
      at: 5_000,
      lockId: "lock-1",
      released: true,
      reentry: 0,
      fence: "7",
      holder,
      grantedAt: 1_000,
      renewals: 0,
    });
    expect(released.holdMs).toBe(4_000);
    expect(tracker.find(key, "lock-1")).toBeUndefined();
  });
});
