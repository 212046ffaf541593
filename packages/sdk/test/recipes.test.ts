import { readFile } from "node:fs/promises";
import { createPool, type Pool } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startStack, type Stack } from "./support/stack.js";
import { delay } from "./support/until.js";
import { rebuildCacheEntry } from "./recipes/await-using.js";
import { copyBatch } from "./recipes/lease-loss.js";
import { runNightlyReport } from "./recipes/nightly-job.js";
import { takeOneFromStock } from "./recipes/stock-decrement.js";
import { settleWhenFree } from "./recipes/wait-with-timeout.js";

const RECIPES = [
  "nightly-job",
  "stock-decrement",
  "wait-with-timeout",
  "await-using",
  "lease-loss",
] as const;

let stack: Stack;
let db: Pool;

beforeAll(async () => {
  stack = await startStack();
  await stack.register("report:nightly");
  await stack.register("stock:decrement");
  await stack.register("order:settle", { fair: true });
  await stack.register("cache:rebuild");
  await stack.register("batch:copy", { defaultLeaseMs: 600, maxRenewals: 0 });
  db = createPool({ uri: stack.db.url, connectionLimit: 4 });
  await db.query(
    `CREATE TABLE job_run (day CHAR(10) PRIMARY KEY, status VARCHAR(16) NOT NULL,
       output TEXT NULL, fence BIGINT UNSIGNED NULL, lock_id CHAR(22) NULL)`,
  );
  await db.query(
    `CREATE TABLE stock (sku VARCHAR(32) PRIMARY KEY, qty INT NOT NULL,
       fence BIGINT UNSIGNED NULL, lock_id CHAR(22) NULL)`,
  );
});

afterAll(async () => {
  await db?.end();
  await stack?.close();
});

test("README.md carries every recipe exactly as the tested file", async () => {
  const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
  for (const name of RECIPES) {
    const source = await readFile(new URL(`./recipes/${name}.ts`, import.meta.url), "utf8");
    expect(readme, `README.md must quote test/recipes/${name}.ts verbatim`).toContain(
      "```ts\n" + source + "```",
    );
  }
});

describe("the README recipes, run as written", () => {
  test("nightly job: one instance runs it, the others skip; it runs once per day", async () => {
    await db.execute("INSERT INTO job_run (day, status) VALUES (?, 'pending')", ["2026-01-02"]);
    const build = async (signal: AbortSignal) => {
      await delay(200);
      signal.throwIfAborted();
      return "42 orders";
    };
    const instances = [stack.client(), stack.client(), stack.client()];
    const outcomes = await Promise.all(
      instances.map((warden) => runNightlyReport(warden, db, "2026-01-02", build)),
    );
    expect(outcomes.sort()).toEqual(["done", "skipped", "skipped"]);
    expect(await runNightlyReport(instances[0]!, db, "2026-01-02", build)).toBe("skipped");
  });

  test("stock decrement: concurrent takers across instances never oversell", async () => {
    await db.execute("INSERT INTO stock (sku, qty) VALUES ('sku-1', 3)");
    const [a, b] = [stack.client(), stack.client()];
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) => takeOneFromStock(i % 2 ? a : b, db, "sku-1")),
    );
    const left = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    expect(left.sort()).toEqual([0, 1, 2]);
    expect(results.filter((r) => r.status === "rejected")).toHaveLength(2);
    const [rows] = await db.execute("SELECT qty FROM stock WHERE sku = 'sku-1'");
    expect((rows as Array<{ qty: number }>)[0]?.qty).toBe(0);
  });

  test("wait for a lock: settled when freed in time, busy after 2 s, cancelled on abort", async () => {
    const [holderClient, waiter] = [stack.client(), stack.client()];
    const settle = async () => undefined;

    const held = await holderClient.acquire("order:settle", "o-1");
    setTimeout(() => void held.release(), 300);
    expect(await settleWhenFree(waiter, "o-1", new AbortController().signal, settle)).toBe(
      "settled",
    );

    const stuck = await holderClient.acquire("order:settle", "o-2");
    expect(await settleWhenFree(waiter, "o-2", new AbortController().signal, settle)).toBe("busy");

    const request = new AbortController();
    setTimeout(() => request.abort(new Error("client went away")), 200);
    const started = performance.now();
    expect(await settleWhenFree(waiter, "o-2", request.signal, settle)).toBe("cancelled");
    expect(performance.now() - started).toBeLessThan(1_800);
    expect(await holderClient.waiters("order:settle", "o-2")).toEqual([]);
    await stuck.release();
  });

  test("await using: the lock is released when the block throws", async () => {
    const warden = stack.client();
    await expect(
      rebuildCacheEntry(warden, "user:7", async () => {
        throw new Error("backend down");
      }),
    ).rejects.toThrow("backend down");
    expect(await warden.inspect("cache:rebuild", "user:7")).toBeNull();
  });

  test("lease loss: the work stops at the first step after the signal aborted", async () => {
    const warden = stack.client({ safetyMarginMs: 100 });
    const quick = [async () => delay(50), async () => delay(50)];
    expect(await copyBatch(warden, "b-1", quick)).toBe("done");
    // batch:copy allows no renewal: a 600 ms lease ends this 4 x 250 ms batch early.
    const ran: number[] = [];
    const slow = [0, 1, 2, 3].map((i) => async (signal: AbortSignal) => {
      ran.push(i);
      await delay(250);
      signal.throwIfAborted();
    });
    expect(await copyBatch(warden, "b-2", slow)).toBe("lost");
    expect(ran.length).toBeLessThan(4);
  });
});
