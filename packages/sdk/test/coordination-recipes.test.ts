import { readFile } from "node:fs/promises";
import { createPool, type Pool } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { InvalidArgumentError, type Campaign } from "../src/index.js";
import { leadWhenElected, logLeaders } from "./recipes/leader-election.js";
import { transfer } from "./recipes/transfer.js";
import { startStack, type Stack } from "./support/stack.js";
import { until } from "./support/until.js";

const RECIPES = ["transfer", "leader-election"] as const;

let stack: Stack;
let db: Pool;

beforeAll(async () => {
  stack = await startStack();
  await stack.register("account:balance");
  await stack.register("service:leader");
  db = createPool({ uri: stack.db.url, connectionLimit: 6 });
  await db.query(
    `CREATE TABLE account (id VARCHAR(32) PRIMARY KEY, balance INT NOT NULL,
       fence BIGINT UNSIGNED NULL, lock_id CHAR(22) NULL)`,
  );
});

afterAll(async () => {
  await db?.end();
  await stack?.close();
});

test("README.md's Coordination recipes quote every recipe exactly as the tested file", async () => {
  const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf("## Coordination recipes"));
  expect(section.length).toBeLessThan(readme.length);
  for (const name of RECIPES) {
    const source = await readFile(new URL(`./recipes/${name}.ts`, import.meta.url), "utf8");
    expect(section, `README.md must quote test/recipes/${name}.ts verbatim`).toContain(
      "```ts\n" + source + "```",
    );
  }
});

describe("the coordination recipes, run as written", () => {
  test("transfer: opposite transfers from two instances all finish and the money adds up", async () => {
    await db.execute("INSERT INTO account (id, balance) VALUES ('alice', 100), ('bob', 100)");
    const [one, two] = [stack.client(), stack.client()];
    const outcomes = await Promise.all([
      ...Array.from({ length: 10 }, () => transfer(one, db, "alice", "bob", 1)),
      ...Array.from({ length: 10 }, () => transfer(two, db, "bob", "alice", 2)),
    ]);
    expect(outcomes.every((outcome) => outcome === "done")).toBe(true);
    const [rows] = await db.execute("SELECT id, balance FROM account ORDER BY id");
    expect(rows).toMatchObject([
      { id: "alice", balance: 110 },
      { id: "bob", balance: 90 },
    ]);
    expect(await transfer(one, db, "alice", "bob", 1_000)).toBe("insufficient");
    await expect(transfer(one, db, "alice", "alice", 1)).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
    expect(await one.inspect("account:balance", "alice")).toBeNull();
    expect(await one.inspect("account:balance", "bob")).toBeNull();
  });

  test("leader election: three instances lead one at a time, handing over on resign", async () => {
    const terms: Array<{ who: number; term: string; start: number; end?: number }> = [];
    const lines: string[] = [];
    const campaigns: Campaign[] = [];
    for (let who = 0; who < 3; who++) {
      const warden = stack.client();
      campaigns.push(
        await leadWhenElected(
          warden,
          "billing",
          async (term, signal) => {
            const entry: { who: number; term: string; start: number; end?: number } = {
              who,
              term,
              start: performance.now(),
            };
            terms.push(entry);
            await new Promise((resolve) => signal.addEventListener("abort", resolve));
            entry.end = performance.now();
          },
          (line) => lines.push(line),
        ),
      );
    }
    const stopLogging = new AbortController();
    const followed: string[] = [];
    const logging = logLeaders(campaigns[0]!, stopLogging.signal, (line) => followed.push(line));
    for (let handover = 1; handover <= 3; handover++) {
      const leader = await until(() => campaigns.find((c) => c.isLeader), 15_000);
      await until(() => followed.some((line) => line.includes(`term ${leader.term},`)), 10_000);
      await leader.resign();
      await until(() => terms.length > handover || campaigns.every((c) => !c.isLeader), 15_000);
    }
    stopLogging.abort();
    await logging;
    await Promise.all(campaigns.map((c) => c.resign()));

    // Each term started after the previous one ended, with a larger term.
    for (let i = 1; i < terms.length; i++) {
      expect(terms[i]!.start).toBeGreaterThanOrEqual(terms[i - 1]!.end!);
      expect(BigInt(terms[i]!.term)).toBeGreaterThan(BigInt(terms[i - 1]!.term));
    }
    expect(terms.length).toBeGreaterThanOrEqual(3);
    expect(new Set(terms.map((t) => t.who)).size).toBe(3);
    expect(lines.filter((line) => line.endsWith("(resigned)")).length).toBeGreaterThanOrEqual(3);
    expect(followed.filter((line) => line.includes(" leads, term ")).length).toBeGreaterThanOrEqual(
      3,
    );
  });
});
