// The cooperative-release recipe of README.md, checked verbatim and run as written against a
// real server (the mechanism of coordination-recipes.test.ts).
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, expect, test } from "vitest";
import { drainUntilAsked } from "./recipes/drain-until-asked.js";
import { startStack, type Stack } from "./support/stack.js";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
  await stack.register("queue:drain");
});

afterAll(async () => {
  await stack?.close();
});

test("README.md's Coordination recipes quote drain-until-asked.ts exactly", async () => {
  const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf("## Coordination recipes"));
  expect(section.length).toBeLessThan(readme.length);
  const source = await readFile(new URL("./recipes/drain-until-asked.ts", import.meta.url), "utf8");
  expect(section, "README.md must quote test/recipes/drain-until-asked.ts verbatim").toContain(
    "```ts\n" + source + "```",
  );
});

test("drain until asked: the worker stops at an item boundary when asked, and the asker gets the lock", async () => {
  const worker = stack.client();
  const asker = stack.client();
  // Long enough a run (100 items of 50 ms) that the request lands in the middle of it.
  const items = Array.from({ length: 100 }, (_, index) => `item-${index}`);
  const handled: string[] = [];
  let started!: () => void;
  const firstItem = new Promise<void>((resolve) => (started = resolve));
  const run = drainUntilAsked(worker, "orders", items, async (item, fence, signal) => {
    expect(fence).not.toBeNull();
    expect(signal.aborted).toBe(false);
    handled.push(item);
    started();
    await new Promise((resolve) => setTimeout(resolve, 50));
  });
  await firstItem;
  await stack.admin.lock.requestRevoke.mutate({
    resource: "queue:drain",
    businessKey: "orders",
    reason: "rebalancing queues",
  });
  const result = await run;
  expect(result.done).toBeGreaterThanOrEqual(1);
  expect(result.done).toBeLessThan(items.length);
  // Whole items only, in order: it stopped between two of them.
  expect(handled).toEqual(items.slice(0, result.done));
  expect(result.askedBy?.reason).toBe("rebalancing queues");
  expect(result.askedBy?.requestedBy).toMatch(/^tenant:/);
  // Released on the way out: the asker gets the key at once.
  const lock = await asker.tryAcquire("queue:drain", "orders");
  expect(lock).not.toBeNull();
  await lock?.release();
});
