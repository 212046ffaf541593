import type { RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FENCE_LAYOUT,
  LockUnavailableError,
  MysqlLeaseSweeper,
  compareFences,
  splitFence,
  type Grant,
} from "../../src/index.js";
import { MemoryEpochSource } from "../support/memory-epoch-source.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";
import { openMysqlTarget, type MysqlTarget } from "./mysql-target.js";

function grant(result: Awaited<ReturnType<MysqlTarget["store"]["acquire"]>>): Grant {
  if (!result.granted)
    throw new Error(`expected a grant, held by ${JSON.stringify(result.holder)}`);
  return result;
}

describe("MySQL tier fences only grow", () => {
  let target: MysqlTarget;

  beforeAll(async () => {
    target = await openMysqlTarget();
  });
  afterAll(async () => {
    await target.close();
  });

  it("never grants at epoch 0: the first grant mints the tier's epoch", async () => {
    const first = grant(
      await target.store.acquire({
        resource: uniqueResource(),
        businessKey: "k",
        holder: holder(),
        leaseMs: 1_000,
      }),
    );
    expect(splitFence(first.fence!).epoch).toBeGreaterThanOrEqual(1);
    expect(target.events.some((event) => event.type === "epoch" && event.tier === "mysql")).toBe(
      true,
    );
  });

  it("strictly increase across expiry, release, cleanup deletion, epoch bumps and a second server", async () => {
    const resource = uniqueResource();
    const key = { resource, businessKey: "k" };
    const sweeper = new MysqlLeaseSweeper(target.admin, { retainMs: 10_000 });
    const second = await target.openStore();
    const fences: string[] = [];
    for (let i = 0; i < 60; i += 1) {
      const store = i % 3 === 0 ? second : target.store;
      const g = grant(
        await store.acquire({
          ...key,
          holder: holder(`o${i}`),
          leaseMs: i % 4 === 0 ? 150 : 5_000,
        }),
      );
      fences.push(g.fence!);
      if (i % 4 === 0) await sleep(200);
      else await store.release({ ...key, lockId: g.lockId });
      if (i % 10 === 5) {
        // Age the ended lease past the retention, then let the sweeper delete the row.
        await target.admin.query(
          "UPDATE mysql_lock SET expires_at = NOW(3) - INTERVAL 1 HOUR WHERE resource = ? AND expires_at <= NOW(3)",
          [resource],
        );
        expect((await sweeper.sweep()).leases).toBeGreaterThanOrEqual(1);
      }
      if (i % 20 === 10) await target.epochSource.mint("a Redis node bound a new epoch");
    }
    for (let i = 1; i < fences.length; i += 1) {
      expect(
        compareFences(fences[i]!, fences[i - 1]!),
        `grant ${i}: ${fences[i - 1]} -> ${fences[i]}`,
      ).toBeGreaterThan(0);
    }
  });

  it("grants above any epoch minted since the tier's own, so never at an epoch Redis may use", async () => {
    const resource = uniqueResource();
    const redisEpoch = await target.epochSource.mint("redis node bound");
    const g = grant(
      await target.store.acquire({ resource, businessKey: "k", holder: holder(), leaseMs: 1_000 }),
    );
    expect(splitFence(g.fence!).epoch).toBeGreaterThan(redisEpoch);
  });

  it("grants at least at the epoch the controller requires", async () => {
    const switchEpoch = await target.epochSource.mint("tier redis -> mysql");
    target.store.requireEpoch(switchEpoch);
    const g = grant(
      await target.store.acquire({
        resource: uniqueResource(),
        businessKey: "k",
        holder: holder(),
        leaseMs: 1_000,
      }),
    );
    expect(splitFence(g.fence!).epoch).toBeGreaterThanOrEqual(switchEpoch);
    expect(target.store.minEpoch).toBeGreaterThanOrEqual(switchEpoch);
  });

  it("moves to a fresh epoch instead of wrapping when the counter runs low", async () => {
    const resource = uniqueResource();
    const key = { resource, businessKey: "k" };
    const before = grant(
      await target.store.acquire({ ...key, holder: holder("a"), leaseMs: 1_000 }),
    );
    await target.store.release({ ...key, lockId: before.lockId });
    const { epoch } = splitFence(before.fence!);
    const [rows] = await target.admin.query<RowDataPacket[]>(
      "SELECT CAST(base AS CHAR) AS base FROM mysql_fence_base WHERE epoch = ?",
      [epoch],
    );
    const nearEnd = BigInt(String(rows[0]?.base)) + BigInt(FENCE_LAYOUT.maxCounter) - 10n;
    await target.admin.query(`SELECT SETVAL(mysql_lock_fence_seq, ${nearEnd})`);
    const after = grant(
      await target.store.acquire({ ...key, holder: holder("b"), leaseMs: 1_000 }),
    );
    expect(splitFence(after.fence!).epoch).toBeGreaterThan(epoch);
    expect(splitFence(after.fence!).counter).toBeLessThan(FENCE_LAYOUT.maxCounter);
    expect(compareFences(after.fence!, before.fence!)).toBeGreaterThan(0);
  });
});

describe("MySQL tier without a durable epoch", () => {
  it("refuses with LockUnavailableError and writes nothing (fail-closed)", async () => {
    const epochSource = new MemoryEpochSource();
    epochSource.down = true;
    const target = await openMysqlTarget({ epochSource });
    try {
      const resource = uniqueResource();
      await expect(
        target.store.acquire({ resource, businessKey: "k", holder: holder(), leaseMs: 1_000 }),
      ).rejects.toBeInstanceOf(LockUnavailableError);
      await expect(
        target.store.acquire({ resource, businessKey: "k", holder: holder(), leaseMs: 1_000 }),
      ).rejects.toMatchObject({ reason: "fencing-epoch" });
      const [rows] = await target.admin.query<RowDataPacket[]>(
        "SELECT COUNT(*) AS n FROM mysql_lock",
      );
      expect(Number(rows[0]?.n)).toBe(0);
      epochSource.down = false;
      const g = grant(
        await target.store.acquire({
          resource,
          businessKey: "k",
          holder: holder(),
          leaseMs: 1_000,
        }),
      );
      expect(splitFence(g.fence!).epoch).toBe(1);
    } finally {
      await target.close();
    }
  });
});
