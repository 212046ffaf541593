import { afterAll, beforeAll, expect, test } from "vitest";
import { OutcomeUnknownError } from "../src/index.js";
import { startStack, type Stack } from "./support/stack.js";
import { startTcpProxy, type TcpProxy } from "./support/tcp-proxy.js";
import { delay, until } from "./support/until.js";

let stack: Stack;
let proxy: TcpProxy;

beforeAll(async () => {
  stack = await startStack();
  proxy = await startTcpProxy(Number(new URL(stack.url).port));
});

afterAll(async () => {
  await proxy?.close();
  await stack?.close();
});

test("connection dropped mid-wait: OutcomeUnknownError, and the acquire is never re-sent after the reconnect (S8)", async () => {
  const resource = await stack.resource("s8-drop");
  const direct = stack.client();
  const viaProxy = stack.client({ url: proxy.url, reconnectMaxDelayMs: 200 });
  const holder = await direct.acquire(resource, "k");
  const waiting = viaProxy.acquire(resource, "k", { waitMs: 20_000 });
  await until(async () => (await direct.waiters(resource, "k")).length === 1, 5_000);

  proxy.cut();
  await expect(waiting).rejects.toBeInstanceOf(OutcomeUnknownError);
  await until(() => viaProxy.state === "open", 10_000);
  // The server dropped the wait with the connection, and nothing sent it again.
  expect(await direct.waiters(resource, "k")).toEqual([]);
  await holder.release();
  await delay(500);
  expect(await direct.inspect(resource, "k")).toBeNull();
});

test("grant whose reply was lost: OutcomeUnknownError, then the SDK finds the grant and releases it", async () => {
  const resource = await stack.resource("s8-lost", { defaultLeaseMs: 30_000 });
  const direct = stack.client();
  const viaProxy = stack.client({
    url: proxy.url,
    requestTimeoutMs: 800,
    reconnectMaxDelayMs: 200,
  });
  await until(() => viaProxy.state === "open", 5_000);

  proxy.blackhole = true;
  const started = performance.now();
  await expect(viaProxy.acquire(resource, "k", { waitMs: 0 })).rejects.toBeInstanceOf(
    OutcomeUnknownError,
  );
  // The server did grant it: the key is held by this client, under a lockId it never saw.
  const orphan = await direct.inspect(resource, "k");
  expect(orphan?.holder.clientId).toBe(viaProxy.clientId);

  proxy.blackhole = false;
  proxy.cut();
  // Released by lockId in the background once the client is connected again, long before
  // its 30 s lease would have expired.
  await until(async () => (await direct.inspect(resource, "k")) === null, 10_000);
  expect(performance.now() - started).toBeLessThan(10_000);
});
