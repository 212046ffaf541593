import type { Pool } from "mysql2/promise";
import { describe, expect, it } from "vitest";
import { StoreEventEmitter } from "../../src/events/event-emitter.js";
import { acquireStep } from "../../src/mysql/acquire-step.js";

const LOCK_ID = "AAAAAAAAAAAAAAAAAAAAAA";

// The statement decides; the SELECT after it (same round trip) only reports. These pin
// what is reported when the row moved on between the two (a very short lease on a loaded
// machine).
function poolAfterGrant(row: Record<string, unknown>): Pool {
  return {
    query: () => Promise.resolve([[{ affectedRows: 1 }, [row]]]),
  } as unknown as Pool;
}

const baseRow = {
  id: "7",
  resource: "r",
  business_key: "k",
  client_id: "me",
  owner_id: "task",
  fence: "8589934593",
  reentry: 1,
  expires_ms: "1000",
  ttl_ms: "0",
};

async function step(row: Record<string, unknown>) {
  return acquireStep(
    {
      pool: poolAfterGrant(row),
      timeoutMs: 1_000,
      deadlockAttempts: 1,
      events: new StoreEventEmitter("mysql", undefined),
    },
    { resource: "r", businessKey: "k" },
    { clientId: "me", ownerId: "task" },
    20,
    LOCK_ID,
  );
}

describe("reporting a grant", () => {
  it("reports a grant whose lease already ended with ttlMs 0, never hides it", async () => {
    const result = await step({ ...baseRow, lock_id: LOCK_ID, live: 0 });
    expect(result).toMatchObject({
      kind: "answer",
      result: { granted: true, lockId: LOCK_ID, fence: "8589934593", ttlMs: 0, reentered: false },
    });
  });

  it("calls the outcome unknown when the row already carries someone else's grant", async () => {
    const result = await step({
      ...baseRow,
      lock_id: "BBBBBBBBBBBBBBBBBBBBBB",
      client_id: "other",
      live: 1,
    });
    expect(result).toEqual({ kind: "lost" });
  });
});
