import { afterAll, beforeAll, expect, test } from "vitest";
import { LeaseLostError, OutcomeUnknownError } from "../src/index.js";
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

test("connection dropped mid-wait: OutcomeUnknownError, and the acquire is never re-sent after the reconnect", async () => {
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

test("a silent server (replies dropped): renewals go unconfirmed, the signal aborts before the lease could end, and the client recovers", async () => {
  const resource = await stack.resource("s4-silent");
  const direct = stack.client();
  const viaProxy = stack.client({
    url: proxy.url,
    requestTimeoutMs: 500,
    pingIntervalMs: 300,
    pongTimeoutMs: 300,
    safetyMarginMs: 200,
    reconnectMaxDelayMs: 200,
  });
  const lock = await viaProxy.acquire(resource, "k", { leaseMs: 1_500 });
  let abortedAtMs = 0;
  lock.signal.addEventListener("abort", () => {
    abortedAtMs = Date.now();
  });
  proxy.blackhole = true;
  await until(() => lock.signal.aborted, 5_000);
  expect(lock.signal.reason).toBeInstanceOf(LeaseLostError);
  // The store still holds the lease (renewals arrived, their answers did not): the client
  // gave up before the store's expiry, never after it.
  const lease = await direct.inspect(resource, "k");
  expect(lease?.lockId).toBe(lock.lockId);
  expect(abortedAtMs).toBeLessThan(lease!.expiresAt);

  proxy.blackhole = false;
  await until(() => viaProxy.state === "open", 10_000);
  // Releasing a lost lock still releases it at the store (the loss was a doubt).
  await lock.release();
  await until(async () => (await direct.inspect(resource, "k")) === null, 5_000);
  const again = await viaProxy.acquire(resource, "k", { waitMs: 0 });
  await again.release();
});
