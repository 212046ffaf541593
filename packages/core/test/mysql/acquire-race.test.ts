import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareFences, type Grant, type MysqlLockStore } from "../../src/index.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";
import { openMysqlTarget, type MysqlTarget } from "./mysql-target.js";

// Two stores on one database stand for two server instances racing for the same keys.
describe("MySQL tier under racing acquirers", () => {
  let target: MysqlTarget;
  let other: MysqlLockStore;

  beforeAll(async () => {
    target = await openMysqlTarget();
    other = await target.openStore();
  });
  afterAll(async () => {
    await target.close();
  });

  it("grants one key to exactly one of 50 concurrent acquirers on two servers", async () => {
    const resource = uniqueResource();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 === 0 ? target.store : other).acquire({
          resource,
          businessKey: "k",
          holder: holder(`o${i}`),
          leaseMs: 10_000,
        }),
      ),
    );
    const winners = results.filter((result) => result.granted);
    expect(winners).toHaveLength(1);
    const winner = winners[0] as Grant;
    for (const loser of results) {
      if (loser.granted) continue;
      expect(loser.holder).toEqual(winner.holder);
      // The winner's lease as it stood (a loaded box may take a while over 50 racers).
      expect(loser.ttlMs).toBeGreaterThan(0);
      expect(loser.ttlMs).toBeLessThanOrEqual(10_000);
    }
  });

  it("lets exactly one of several racing callers take over an expired row", async () => {
    const resource = uniqueResource();
    for (let round = 0; round < 5; round += 1) {
      const first = await target.store.acquire({
        resource,
        businessKey: "k",
        holder: holder("old"),
        leaseMs: 150,
      });
      expect(first.granted).toBe(true);
      await sleep(200);
      const racers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          (i % 2 === 0 ? target.store : other).acquire({
            resource,
            businessKey: "k",
            holder: holder(`r${i}`),
            leaseMs: 5_000,
          }),
        ),
      );
      const winners = racers.filter((result): result is Grant => result.granted);
      expect(winners, `round ${round}`).toHaveLength(1);
      expect(winners[0]?.reentered).toBe(false);
      expect(compareFences(winners[0]!.fence!, (first as Grant).fence!)).toBeGreaterThan(0);
      await target.store.forceRelease({ resource, businessKey: "k" });
    }
  });

  it("a hot key changing hands on every call: each try is granted or refused, never an error, and never shared", async () => {
    const resource = uniqueResource();
    const stopAt = performance.now() + 1_500;
    let holding = 0;
    let overlaps = 0;
    let grants = 0;
    let refusals = 0;
    const errors: string[] = [];
    await Promise.all(
      Array.from({ length: 32 }, async (_, i) => {
        const store = i % 2 === 0 ? target.store : other;
        while (performance.now() < stopAt) {
          try {
            const result = await store.acquire({
              resource,
              businessKey: "hot",
              holder: holder(`w${i}`),
              leaseMs: 5_000,
            });
            if (!result.granted) {
              refusals += 1;
              continue;
            }
            grants += 1;
            holding += 1;
            if (holding > 1) overlaps += 1;
            // Hold across a turn of the event loop, so a second grant would overlap it.
            await new Promise((resolve) => setImmediate(resolve));
            holding -= 1;
            await store.release({ resource, businessKey: "hot", lockId: result.lockId });
          } catch (error) {
            errors.push(String(error));
          }
        }
      }),
    );
    expect(errors).toEqual([]);
    expect(overlaps).toBe(0);
    expect(grants).toBeGreaterThan(0);
    expect(refusals).toBeGreaterThan(0);
  });
});
