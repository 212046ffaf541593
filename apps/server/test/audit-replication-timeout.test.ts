import type { StoreEvent } from "@warden/core";
import { describe, expect, it } from "vitest";
import { recordOfEvent } from "../src/audit/audit-record.js";

const undone = (entryOnly?: boolean): StoreEvent => ({
  type: "replication-timeout",
  resource: "payout.settle",
  businessKey: "order-1",
  tier: "redis",
  at: 1_800_000_000_000,
  lockId: "lock-1",
  required: 2,
  acknowledged: 1,
  ...(entryOnly === undefined ? {} : { entryOnly }),
});

describe("a replication-timeout's audit row", () => {
  it("says a grant was undone, or only a re-entry of a lease that goes on", () => {
    const context = { tenantId: "t1", lease: null };
    expect(recordOfEvent(undone(), context)).toMatchObject({
      type: "replication-timeout",
      lockId: "lock-1",
      reason: "acknowledged by 1 of 2 replicas; undone",
    });
    expect(recordOfEvent(undone(false), context).reason).toBe(
      "acknowledged by 1 of 2 replicas; undone",
    );
    expect(recordOfEvent(undone(true), context).reason).toBe(
      "re-entry acknowledged by 1 of 2 replicas; that entry undone, the lease goes on",
    );
  });
});
