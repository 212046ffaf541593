import type { Redis } from "ioredis";
import {
  createTestDatabase,
  startRedis,
  type StandaloneRedis,
  type TestDatabase,
} from "@warden/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  claimFence,
  claimedUpdate,
  fencedUpdate,
  InvalidArgumentError,
  LockUnavailableError,
  redisClaimFence,
  redisClaimedSet,
  redisFencedSet,
  versionedUpdate,
  type FencedHolder,
  type StaleFenceReport,
} from "../src/index.js";
import { createLedger, type Ledger } from "./support/ledger.js";
import { uid } from "./support/stack.js";

let db: TestDatabase;
let ledger: Ledger;
let redisServer: StandaloneRedis;
let redis: Redis;

beforeAll(async () => {
  db = await createTestDatabase();
  ledger = await createLedger(db.url);
  redisServer = await startRedis();
  redis = redisServer.client();
});

afterAll(async () => {
  redis?.disconnect();
  await redisServer?.stop();
  await ledger?.close();
  await db?.drop();
});

/** A holder as a worker process would get it with the work: fence, lockId, and a reporter. */
function holder(fence: string, reports: StaleFenceReport[] = []): FencedHolder {
  return {
    resource: "guards",
    businessKey: "k",
    lockId: `L${fence.padStart(21, "0")}`,
    fence,
    tier: "redis",
    reportStaleFence: (report) => reports.push(report),
  };
}

let nextId = 100;

describe("MySQL guards", () => {
  test("fencedUpdate: applied, duplicate for the same fence, stale (reported) for an older one", async () => {
    const id = nextId++;
    await ledger.insert(id, 0);
    const target = { table: ledger.table, where: { id } };
    const reports: StaleFenceReport[] = [];
    expect(await fencedUpdate(ledger.pool, holder("5"), { ...target, set: { value: 1 } })).toEqual({
      outcome: "applied",
      currentFence: "5",
    });
    expect(
      (await fencedUpdate(ledger.pool, holder("5"), { ...target, set: { value: 1 } })).outcome,
    ).toBe("duplicate");
    expect(
      await fencedUpdate(ledger.pool, holder("4", reports), { ...target, set: { value: 9 } }),
    ).toEqual({
      outcome: "stale",
      currentFence: "5",
    });
    expect(reports).toEqual([{ currentFence: "5", target: `mysql:${ledger.table}` }]);
    expect(await ledger.value(id)).toBe(1);
  });

  test("fences compare as unsigned 64-bit integers, not as text or doubles", async () => {
    const id = nextId++;
    await ledger.insert(id, 0);
    const target = { table: ledger.table, where: { id }, set: { value: 1 } };
    expect((await fencedUpdate(ledger.pool, holder("9"), target)).outcome).toBe("applied");
    expect((await fencedUpdate(ledger.pool, holder("10"), target)).outcome).toBe("applied");
    expect((await fencedUpdate(ledger.pool, holder("18446744073709551614"), target)).outcome).toBe(
      "applied",
    );
    expect((await fencedUpdate(ledger.pool, holder("18446744073709551615"), target)).outcome).toBe(
      "applied",
    );
    expect((await fencedUpdate(ledger.pool, holder("18446744073709551614"), target)).outcome).toBe(
      "stale",
    );
  });

  test("claimFence + claimedUpdate: several writes under one claim; stale once a newer lock claimed", async () => {
    const id = nextId++;
    await ledger.insert(id, 0);
    const target = { table: ledger.table, where: { id } };
    const old = holder("7");
    expect((await claimFence(ledger.pool, old, target)).outcome).toBe("applied");
    expect((await claimFence(ledger.pool, old, target)).outcome).toBe("duplicate");
    expect((await claimedUpdate(ledger.pool, old, { ...target, set: { value: 1 } })).outcome).toBe(
      "applied",
    );
    expect((await claimedUpdate(ledger.pool, old, { ...target, set: { value: 2 } })).outcome).toBe(
      "applied",
    );
    const next = holder("8");
    expect((await claimFence(ledger.pool, next, target)).outcome).toBe("applied");
    expect((await claimedUpdate(ledger.pool, old, { ...target, set: { value: 3 } })).outcome).toBe(
      "stale",
    );
    expect((await claimFence(ledger.pool, old, target)).outcome).toBe("stale");
    expect(await ledger.value(id)).toBe(2);
  });

  test("claimedUpdate without a claim is a programming error", async () => {
    const id = nextId++;
    await ledger.insert(id, 0);
    await expect(
      claimedUpdate(ledger.pool, holder("3"), {
        table: ledger.table,
        where: { id },
        set: { value: 1 },
      }),
    ).rejects.toThrow(/claimFence/);
  });

  test("versionedUpdate: conflict when the version moved, duplicate for our own landed retry, stale for older fences", async () => {
    const id = nextId++;
    await ledger.insert(id, 0);
    const target = { table: ledger.table, where: { id } };
    const lock = holder("20");
    expect(
      (
        await versionedUpdate(ledger.pool, lock, {
          ...target,
          set: { value: 1 },
          expectedVersion: 0,
        })
      ).outcome,
    ).toBe("applied");
    expect(
      (
        await versionedUpdate(ledger.pool, lock, {
          ...target,
          set: { value: 1 },
          expectedVersion: 0,
        })
      ).outcome,
    ).toBe("duplicate");
    expect(
      (
        await versionedUpdate(ledger.pool, holder("21"), {
          ...target,
          set: { value: 5 },
          expectedVersion: 0,
        })
      ).outcome,
    ).toBe("conflict");
    expect(
      (
        await versionedUpdate(ledger.pool, holder("19"), {
          ...target,
          set: { value: 5 },
          expectedVersion: 1,
        })
      ).outcome,
    ).toBe("stale");
    expect(await ledger.value(id)).toBe(1);
  });

  test("guards refuse local-tier locks, bad identifiers, and a where that names no single row", async () => {
    const local: FencedHolder = { ...holder("1"), fence: null, tier: "local" };
    const target = { table: ledger.table, where: { id: 1 }, set: { value: 1 } };
    await expect(fencedUpdate(ledger.pool, local, target)).rejects.toBeInstanceOf(
      LockUnavailableError,
    );
    await expect(
      fencedUpdate(ledger.pool, holder("1"), { ...target, table: "x; DROP TABLE y" }),
    ).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(
      fencedUpdate(ledger.pool, holder("1"), { ...target, where: { id: 999_999 } }),
    ).rejects.toThrow(/matches no row/);
  });
});

describe("Redis guards", () => {
  test("redisFencedSet: applied, duplicate, stale (reported), compared as integers", async () => {
    const key = `guard:${uid()}`;
    const reports: StaleFenceReport[] = [];
    expect(await redisFencedSet(redis, holder("9"), { key, set: { value: 1 } })).toEqual({
      outcome: "applied",
      currentFence: "9",
    });
    expect((await redisFencedSet(redis, holder("9"), { key, set: { value: 1 } })).outcome).toBe(
      "duplicate",
    );
    expect((await redisFencedSet(redis, holder("10"), { key, set: { value: 2 } })).outcome).toBe(
      "applied",
    );
    expect(await redisFencedSet(redis, holder("9", reports), { key, set: { value: 3 } })).toEqual({
      outcome: "stale",
      currentFence: "10",
    });
    expect(reports).toEqual([{ currentFence: "10", target: `redis:${key}` }]);
    expect(await redis.hgetall(key)).toEqual({
      value: "2",
      fence: "10",
      lock_id: holder("10").lockId,
    });
  });

  test("redisClaimFence + redisClaimedSet: writes under the claim; stale after a newer claim; unclaimed is an error", async () => {
    const key = `guard:${uid()}`;
    const old = holder("30");
    await expect(redisClaimedSet(redis, old, { key, set: { value: 1 } })).rejects.toThrow(
      /redisClaimFence/,
    );
    expect((await redisClaimFence(redis, old, { key })).outcome).toBe("applied");
    expect((await redisClaimFence(redis, old, { key })).outcome).toBe("duplicate");
    expect((await redisClaimedSet(redis, old, { key, set: { value: 1 } })).outcome).toBe("applied");
    expect((await redisClaimFence(redis, holder("31"), { key })).outcome).toBe("applied");
    expect((await redisClaimedSet(redis, old, { key, set: { value: 2 } })).outcome).toBe("stale");
    expect(await redis.hget(key, "value")).toBe("1");
    await expect(redisFencedSet(redis, old, { key, set: { fence: "99" } })).rejects.toThrow(
      /guard's own field/,
    );
  });
});
