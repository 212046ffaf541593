import type { Pool } from "mysql2/promise";
import { describe, expect, it } from "vitest";
import { acquireStep } from "../../src/mysql/acquire-step.js";
import { ER_LOCK_DEADLOCK, isDeadlock, retryDeadlocks } from "../../src/mysql/deadlock-retry.js";
import { StoreEventEmitter } from "../../src/events/event-emitter.js";
import type { LockEvent } from "../../src/index.js";

const deadlock = () =>
  Object.assign(new Error("Deadlock found when trying to get lock"), { errno: ER_LOCK_DEADLOCK });

describe("retryDeadlocks", () => {
  it("retries a deadlocked statement and returns its value", async () => {
    let calls = 0;
    const outcome = await retryDeadlocks(() => {
      calls += 1;
      return calls < 3 ? Promise.reject(deadlock()) : Promise.resolve("done");
    }, 3);
    expect(outcome).toEqual({ ok: true, value: "done" });
    expect(calls).toBe(3);
  });

  it("gives up after the bounded number of attempts without throwing", async () => {
    let calls = 0;
    const outcome = await retryDeadlocks(() => {
      calls += 1;
      return Promise.reject(deadlock());
    }, 3);
    expect(outcome).toEqual({ ok: false });
    expect(calls).toBe(3);
  });

  it("rethrows any other error at once", async () => {
    let calls = 0;
    const failure = Object.assign(new Error("table missing"), { errno: 1146 });
    await expect(
      retryDeadlocks(() => {
        calls += 1;
        return Promise.reject(failure);
      }, 3),
    ).rejects.toBe(failure);
    expect(calls).toBe(1);
    expect(isDeadlock(failure)).toBe(false);
  });
});

describe("acquire under persistent deadlocks", () => {
  // A pool whose acquire statement always deadlocks; the report finds another holder.
  function deadlockingPool(liveHolder: boolean): { pool: Pool; statements: string[] } {
    const statements: string[] = [];
    const run = (options: { sql: string }) => {
      statements.push(options.sql.trim().split(/\s+/)[0] ?? "");
      if (options.sql.trimStart().startsWith("INSERT")) return Promise.reject(deadlock());
      const row = liveHolder
        ? {
            lock_id: "HHHHHHHHHHHHHHHHHHHHHH",
            client_id: "c1",
            owner_id: "o1",
            ttl_ms: "900",
            live: 1,
          }
        : undefined;
      return Promise.resolve([row ? [row] : []]);
    };
    // The acquire round trip goes through query (several statements), reports through execute.
    const pool = { query: run, execute: run } as unknown as Pool;
    return { pool, statements };
  }

  it("answers with a plain refusal naming the holder, never an error", async () => {
    const { pool, statements } = deadlockingPool(true);
    const events: LockEvent[] = [];
    const step = await acquireStep(
      {
        pool,
        timeoutMs: 1_000,
        deadlockAttempts: 3,
        events: new StoreEventEmitter("mysql", (event) => events.push(event as LockEvent)),
      },
      { resource: "r", businessKey: "k" },
      { clientId: "me", ownerId: "task" },
      1_000,
      "AAAAAAAAAAAAAAAAAAAAAA",
    );
    expect(step).toEqual({
      kind: "answer",
      result: {
        granted: false,
        holder: { clientId: "c1", ownerId: "o1" },
        ttlMs: 900,
        tier: "mysql",
      },
    });
    expect(statements.filter((s) => s === "INSERT")).toHaveLength(3);
    expect(events.map((event) => event.type)).toEqual(["refusal"]);
  });

  it("refuses with ttl 0 when nobody holds the key (busy, try again)", async () => {
    const { pool } = deadlockingPool(false);
    const step = await acquireStep(
      {
        pool,
        timeoutMs: 1_000,
        deadlockAttempts: 2,
        events: new StoreEventEmitter("mysql", undefined),
      },
      { resource: "r", businessKey: "k" },
      { clientId: "me", ownerId: "task" },
      1_000,
      "AAAAAAAAAAAAAAAAAAAAAA",
    );
    expect(step).toMatchObject({ kind: "answer", result: { granted: false, ttlMs: 0 } });
  });
});
