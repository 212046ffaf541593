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
      expect(loser.ttlMs).toBeGreaterThan(9_000);
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
});
