import { afterAll, beforeAll, expect, test } from "vitest";
import { LockUnavailableError } from "../src/index.js";
import { startStack, uid, type Stack } from "./support/stack.js";
import { startTcpProxy, type TcpProxy } from "./support/tcp-proxy.js";
import { until } from "./support/until.js";

// close() must leave nothing held: a grant the server made while the client was giving up
// a wait or closing is released before the socket goes, not left to run out its lease.
// The proxy keeps the server's replies back, so the grant always crosses the close.

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

/** What `promise` rejected with (attached at once: no unhandled rejection meanwhile). */
function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error("resolved, expected a rejection"),
    (error: unknown) => error,
  );
}

/** A client through the proxy whose socket is open. */
async function proxied() {
  const client = stack.client({ url: proxy.url });
  await until(() => client.state === "open", 5_000);
  return client;
}

test("a grant that crossed an aborted wait is released by a close() that follows at once", async () => {
  const resource = await stack.resource("close-abort", { defaultLeaseMs: 60_000 });
  const direct = stack.client();
  const holder = await direct.acquire(resource, "k");
  const waiter = await proxied();
  const controller = new AbortController();
  const waiting = rejection(
    waiter.acquire(resource, "k", { waitMs: 30_000, signal: controller.signal }),
  );
  await until(async () => (await direct.waiters(resource, "k")).length === 1, 5_000);

  proxy.holdReplies();
  await holder.release();
  // The server granted the waiter; the grant's reply is on its way.
  await until(
    async () => (await direct.inspect(resource, "k"))?.holder.clientId === waiter.clientId,
    5_000,
  );
  const reason = new Error("the job was cancelled");
  controller.abort(reason);
  const closing = waiter.close();
  setTimeout(() => proxy.deliver(), 100);
  await closing;

  expect(await waiting).toBe(reason);
  // Released before close() resolved, not 60 s later when the lease runs out.
  expect(await direct.inspect(resource, "k")).toBeNull();
});

test("close() withdraws a wait in flight; a grant that crosses it is released and the caller told the client closed", async () => {
  const resource = await stack.resource("close-wait", { defaultLeaseMs: 60_000 });
  const direct = stack.client();
  const holder = await direct.acquire(resource, "k");
  const waiter = await proxied();
  const waiting = rejection(waiter.acquire(resource, "k", { waitMs: 30_000 }));
  const queued = waiter.acquire(resource, "other", { waitMs: 30_000 });
  const other = await direct.acquire(resource, "other");
  await other.release();
  await expect(queued).resolves.toBeDefined();
  await until(async () => (await direct.waiters(resource, "k")).length === 1, 5_000);

  proxy.holdReplies();
  await holder.release();
  await until(
    async () => (await direct.inspect(resource, "k"))?.holder.clientId === waiter.clientId,
    5_000,
  );
  const closing = waiter.close();
  setTimeout(() => proxy.deliver(), 100);
  await closing;

  expect(await waiting).toBeInstanceOf(LockUnavailableError);
  expect(await waiting).toMatchObject({ reason: "client-closed" });
  expect(await direct.inspect(resource, "k")).toBeNull();
  // The lock held before the close is released too.
  expect(await direct.inspect(resource, "other")).toBeNull();
});

test("close() during a wait nobody grants: the wait is withdrawn at the server and the caller told the client closed", async () => {
  const resource = await stack.resource("close-withdraw");
  const direct = stack.client();
  const holder = await direct.acquire(resource, "k");
  const waiter = await proxied();
  const waiting = rejection(waiter.acquire(resource, "k", { waitMs: 30_000 }));
  await until(async () => (await direct.waiters(resource, "k")).length === 1, 5_000);

  const started = performance.now();
  await waiter.close();
  expect(await waiting).toBeInstanceOf(LockUnavailableError);
  expect(await waiting).toMatchObject({ reason: "client-closed" });
  // Withdrawn, not left for the 30 s wait or the request deadline.
  expect(performance.now() - started).toBeLessThan(2_500);
  expect(await direct.waiters(resource, "k")).toEqual([]);
  expect((await direct.inspect(resource, "k"))?.lockId).toBe(holder.lockId);
  await holder.release();
});

test("a semaphore permit granted as the client closes is released before close() resolves", async () => {
  const resource = await stack.resource("close-sem", {
    kind: "semaphore",
    permits: 1,
    defaultLeaseMs: 60_000,
  });
  const key = `k-${uid()}`;
  const direct = stack.client();
  const held = await direct.semaphore(resource, key).acquire();
  const waiter = await proxied();
  const waiting = rejection(waiter.semaphore(resource, key).acquire({ waitMs: 30_000 }));
  await until(async () => (await direct.waiters(resource, key)).length === 1, 5_000);

  proxy.holdReplies();
  await held.release();
  await until(async () => (await direct.semaphore(resource, key).inspect()).inUse === 1, 5_000);
  const closing = waiter.close();
  setTimeout(() => proxy.deliver(), 100);
  await closing;

  expect(await waiting).toBeInstanceOf(LockUnavailableError);
  expect(await waiting).toMatchObject({ reason: "client-closed" });
  expect((await direct.semaphore(resource, key).inspect()).inUse).toBe(0);
});
