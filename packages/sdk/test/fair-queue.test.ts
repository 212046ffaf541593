import { afterAll, beforeAll, expect, test } from "vitest";
import type { Lock } from "../src/index.js";
import { runFixture } from "./support/child.js";
import { startStack, uid, type Stack } from "./support/stack.js";
import { delay, until } from "./support/until.js";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.close();
});

test("fair resource: 10 waiters are served in arrival order; a cancelled waiter leaves the queue", async () => {
  const resource = await stack.resource("fair", { fair: true });
  const observer = stack.client();
  const clients = [stack.client(), stack.client(), stack.client()];
  const holder = await observer.acquire(resource, "k");
  const served: number[] = [];
  const cancel = new AbortController();
  const outcomes: Array<Promise<unknown>> = [];
  for (let i = 0; i < 10; i++) {
    const warden = clients[i % clients.length]!;
    const options = { waitMs: 25_000, ...(i === 4 ? { signal: cancel.signal } : {}) };
    outcomes.push(
      warden.acquire(resource, "k", options).then(
        async (lock: Lock) => {
          served.push(i);
          await delay(10);
          await lock.release();
          return "served";
        },
        (error: unknown) => error,
      ),
    );
    // Arrival order is the order the server queued them in.
    await until(async () => (await observer.waiters(resource, "k")).length === i + 1, 5_000);
  }
  const queued = await observer.waiters(resource, "k");
  expect(queued.map((waiter) => waiter.position)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);

  const reason = new Error("the caller gave up");
  cancel.abort(reason);
  expect(await outcomes[4]).toBe(reason);
  await until(async () => (await observer.waiters(resource, "k")).length === 9, 5_000);

  await holder.release();
  const results = await Promise.all(outcomes);
  expect(results.filter((result) => result === "served")).toHaveLength(9);
  expect(served).toEqual([0, 1, 2, 3, 5, 6, 7, 8, 9]);
});

test("fair resource: a killed waiter process leaves the queue at once and does not stall it", async () => {
  const resource = await stack.resource("fair-kill", { fair: true });
  const observer = stack.client();
  const holder = await observer.acquire(resource, "k");
  const childId = `child-${uid()}`;
  const child = runFixture("waiter", [stack.url, stack.apiKey, resource, childId]);
  await child.line(/^started$/);
  await until(
    async () => (await observer.waiters(resource, "k")).some((w) => w.clientId === childId),
    10_000,
  );
  // A waiter behind the child process.
  const behind = stack.client().acquire(resource, "k", { waitMs: 20_000 });
  await until(async () => (await observer.waiters(resource, "k")).length === 2, 5_000);

  child.process.kill("SIGKILL");
  await child.exited;
  const killedAt = performance.now();
  await until(
    async () => !(await observer.waiters(resource, "k")).some((w) => w.clientId === childId),
    5_000,
  );
  expect(performance.now() - killedAt).toBeLessThan(5_000);

  const releasedAt = performance.now();
  await holder.release();
  const lock = await behind;
  expect(performance.now() - releasedAt).toBeLessThan(5_000);
  await lock.release();
});
