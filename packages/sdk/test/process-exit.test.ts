import { afterAll, beforeAll, expect, test } from "vitest";
import { freePort } from "@warden/testkit";
import { runFixture } from "./support/child.js";
import { startStack, type Stack } from "./support/stack.js";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.close();
});

test("after close() nothing keeps the process alive: held lock, renewals, heartbeats, a wait in flight", async () => {
  const resource = await stack.resource("exit");
  const child = runFixture("close-and-exit", ["busy", stack.url, stack.apiKey, resource]);
  expect(await child.line(/^waiter: /)).toBe("waiter: closed");
  expect(await child.line(/^held lock signal aborted: /)).toBe("held lock signal aborted: true");
  await child.line(/^closed$/);
  const closedAt = performance.now();
  const exit = await child.exited;
  expect(exit.code).toBe(0);
  expect(exit.at - closedAt).toBeLessThan(3_000);
  expect(child.lines.filter((line) => line.startsWith("still alive"))).toEqual([]);
  // The held lock was released on close.
  expect(await stack.client().inspect(resource, "held")).toBeNull();
});

test("after close() nothing keeps the process alive: unreachable server, reconnect loop running", async () => {
  const port = await freePort();
  const child = runFixture("close-and-exit", [
    "unreachable",
    `http://127.0.0.1:${port}`,
    "wdn_x",
    "r",
  ]);
  expect(await child.line(/^acquire: /)).toBe("acquire: unavailable");
  await child.line(/^closed$/);
  const closedAt = performance.now();
  const exit = await child.exited;
  expect(exit.code).toBe(0);
  expect(exit.at - closedAt).toBeLessThan(3_000);
  expect(child.lines.filter((line) => line.startsWith("still alive"))).toEqual([]);
});
