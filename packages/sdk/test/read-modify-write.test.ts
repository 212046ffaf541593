import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  claimFence,
  claimedUpdate,
  fencedUpdate,
  redisClaimFence,
  redisClaimedSet,
  redisFencedSet,
  versionedUpdate,
  type GuardResult,
  type Lock,
  type Warden,
} from "../src/index.js";
import { createLedger, type Ledger } from "./support/ledger.js";
import { startStack, uid, type Stack } from "./support/stack.js";

let stack: Stack;
let ledger: Ledger;
let redis: Redis;

beforeAll(async () => {
  stack = await startStack();
  ledger = await createLedger(stack.db.url);
  redis = stack.redis.client();
});

afterAll(async () => {
  redis?.disconnect();
  await ledger?.pool.end();
  await stack?.close();
});

/** How one holder increments a counter: read it (under whatever guard), then write +1. */
interface Increment {
  /** Reads the current value; may claim first. Returns what the write needs. */
  read(lock: Lock): Promise<{ value: number; version?: string }>;
  write(lock: Lock, read: { value: number; version?: string }): Promise<GuardResult>;
  final(): Promise<number>;
}

/**
 * The schedule of the issue: the old holder A reads, then is "paused" until its lease
 * runs out (no renewals allowed) and the new holder B has read too; then A writes, then
 * B writes. Returns each write's outcome and the final value.
 */
async function pausedOldHolder(increment: Increment) {
  const resource = await stack.resource("rmw", { defaultLeaseMs: 800, maxRenewals: 0 });
  const clientA: Warden = stack.client();
  const clientB: Warden = stack.client();
  const lockA = await clientA.acquire(resource, "counter", { leaseMs: 800 });
  const readA = await increment.read(lockA);
  // A is paused here: its lease lapses (the SDK says so: its signal aborts), B gets the key.
  const lockB = await clientB.acquire(resource, "counter", { leaseMs: 5_000, waitMs: 5_000 });
  expect(lockA.signal.aborted).toBe(true);
  const readB = await increment.read(lockB);
  // A resumes, unaware, and writes what it computed; then B writes.
  const writeA = await increment.write(lockA, readA);
  let writeB = await increment.write(lockB, readB);
  let retries = 0;
  while (writeB.outcome === "conflict" && retries++ < 3) {
    writeB = await increment.write(lockB, await increment.read(lockB));
  }
  await lockB.release();
  await lockA.release();
  return { a: writeA.outcome, b: writeB.outcome, final: await increment.final() };
}

function mysqlCounter(id: number, guard: "fence-only" | "claim" | "version"): Increment {
  const where = { id };
  const table = ledger.table;
  return {
    async read(lock) {
      if (guard === "claim") {
        const claim = await claimFence(ledger.pool, lock, { table, where });
        if (claim.outcome === "stale") return { value: Number.NaN };
      }
      const [rows] = await ledger.pool.execute(
        `SELECT value, CAST(version AS CHAR) AS version FROM \`${table}\` WHERE id = ?`,
        [id],
      );
      const row = (rows as Array<{ value: number; version: string }>)[0]!;
      return { value: row.value, version: row.version };
    },
    write(lock, read) {
      const set = { value: read.value + 1 };
      if (guard === "fence-only") return fencedUpdate(ledger.pool, lock, { table, where, set });
      if (guard === "claim") return claimedUpdate(ledger.pool, lock, { table, where, set });
      return versionedUpdate(ledger.pool, lock, {
        table,
        where,
        set,
        expectedVersion: read.version ?? "0",
      });
    },
    final: () => ledger.value(id),
  };
}

function redisCounter(key: string, guard: "fence-only" | "claim"): Increment {
  return {
    async read(lock) {
      if (guard === "claim") await redisClaimFence(redis, lock, { key });
      return { value: Number((await redis.hget(key, "value")) ?? "0") };
    },
    write(lock, read) {
      const set = { value: read.value + 1 };
      return guard === "claim"
        ? redisClaimedSet(redis, lock, { key, set })
        : redisFencedSet(redis, lock, { key, set });
    },
    final: async () => Number((await redis.hget(key, "value")) ?? "0"),
  };
}

describe("read-modify-write under a paused old holder", () => {
  test("MySQL, fence-only check: both writes pass in order and one increment is lost", async () => {
    await ledger.insert(10, 0);
    const run = await pausedOldHolder(mysqlCounter(10, "fence-only"));
    expect(run).toEqual({ a: "applied", b: "applied", final: 1 });
  });

  test("MySQL, claim before read: the old holder's write is stale and no increment is lost", async () => {
    await ledger.insert(11, 0);
    const run = await pausedOldHolder(mysqlCounter(11, "claim"));
    // One increment applied, the refused one was never applied: the count is exact.
    expect(run).toEqual({ a: "stale", b: "applied", final: 1 });
  });

  test("MySQL, version read with the fence: the new holder sees the conflict, re-reads, and no increment is lost", async () => {
    await ledger.insert(12, 0);
    const run = await pausedOldHolder(mysqlCounter(12, "version"));
    // A's write landed first (it passed: nobody newer had written); B's first write came
    // back `conflict`, B re-read and applied on top of it.
    expect(run).toEqual({ a: "applied", b: "applied", final: 2 });
  });

  test("Redis, fence-only compare-and-set loses one increment; claim before read does not", async () => {
    const lost = await pausedOldHolder(redisCounter(`rmw:${uid()}`, "fence-only"));
    expect(lost).toEqual({ a: "applied", b: "applied", final: 1 });
    const kept = await pausedOldHolder(redisCounter(`rmw:${uid()}`, "claim"));
    expect(kept).toEqual({ a: "stale", b: "applied", final: 1 });
  });
});
