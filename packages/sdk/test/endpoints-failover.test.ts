// One SDK client, several server instances of one fleet (one Redis, one database): the
// client moves to another instance when the one it uses goes away, keeps its held locks
// (renewed by lockId through the other instance) and queues new waits there.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadEnv, startServer, type RunningServer } from "@warden/server";
import { freePort } from "@warden/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  InvalidArgumentError,
  OutcomeUnknownError,
  createWarden,
  type Warden,
} from "../src/index.js";
import { startStack, uid, type Stack } from "./support/stack.js";
import { startTcpProxy, type TcpProxy } from "./support/tcp-proxy.js";
import { delay, until } from "./support/until.js";

let stack: Stack;
let second: RunningServer;
let spool: string;

beforeAll(async () => {
  stack = await startStack();
  spool = await mkdtemp(join(tmpdir(), "warden-sdk-endpoints-"));
  second = await startServer(
    loadEnv({
      DATABASE_URL: stack.db.url,
      REDIS_URL: stack.redis.url,
      WARDEN_HOST: "127.0.0.1",
      WARDEN_PORT: String(await freePort()),
      WARDEN_LOG_LEVEL: "fatal",
      WARDEN_AUDIT_SPOOL_DIR: spool,
      WARDEN_AUDIT_FLUSH_MS: "50",
      WARDEN_TIER_PROBE_INTERVAL_MS: "200",
      WARDEN_SHUTDOWN_GRACE_MS: "500",
      WARDEN_INSTANCE_ID: `sdk-test-b-${uid()}`,
    }),
  );
});

afterAll(async () => {
  await stack?.close();
  await second?.stop();
  if (spool) await rm(spool, { recursive: true, force: true });
});

/** Each instance behind its own proxy: closing a proxy is, for the client, the instance dying. */
async function twoInstances(): Promise<{ proxies: TcpProxy[]; urls: string[] }> {
  const proxies = [
    await startTcpProxy(Number(new URL(stack.url).port)),
    await startTcpProxy(Number(new URL(second.http.url).port)),
  ];
  return { proxies, urls: proxies.map((proxy) => proxy.url) };
}

/**
 * Waiters of the key, as both instances list them: the list is fleet-wide (decision 0155),
 * so each instance must answer the same count; until they agree the count is unsettled (-1).
 */
let observers: Warden[] | undefined;
async function waitersOf(resource: string, key: string): Promise<number> {
  observers ??= [stack.url, second.http.url].map((url) => stack.client({ url }));
  const lists = await Promise.all(observers.map((observer) => observer.waiters(resource, key)));
  const counts = new Set(lists.map((list) => list.length));
  return counts.size === 1 ? lists[0]!.length : -1;
}

/** The proxy the client is connected through. */
function proxyOf(proxies: TcpProxy[], endpoint: string): TcpProxy {
  const port = new URL(endpoint).port;
  const found = proxies.find((proxy) => new URL(proxy.url).port === port);
  if (!found) throw new Error(`no proxy for ${endpoint}`);
  return found;
}

describe("the url option", () => {
  const apiKey = "wdn_test";

  test("takes an array or a comma-separated string; each entry is normalised", async () => {
    const fromArray = createWarden({
      url: ["http://127.0.0.1:1", "ws://127.0.0.1:2/trpc"],
      apiKey,
      connectTimeoutMs: 0,
    });
    const fromString = createWarden({
      url: " http://127.0.0.1:1 ,http://127.0.0.1:2",
      apiKey,
      connectTimeoutMs: 0,
    });
    try {
      const expected = ["ws://127.0.0.1:1/trpc", "ws://127.0.0.1:2/trpc"];
      expect(expected).toContain(fromArray.endpoint);
      expect(expected).toContain(fromString.endpoint);
    } finally {
      await fromArray.close();
      await fromString.close();
    }
  });

  test.each([
    ["an empty array", []],
    ["an empty entry", "http://127.0.0.1:1,"],
    ["a duplicate", ["http://127.0.0.1:1", "ws://127.0.0.1:1/trpc"]],
    ["a bad scheme", ["http://127.0.0.1:1", "ftp://127.0.0.1:2"]],
    ["33 servers", Array.from({ length: 33 }, (_, i) => `http://127.0.0.1:${i + 1}`)],
  ])("refuses %s with an InvalidArgumentError naming url", (_, url) => {
    let thrown: unknown;
    try {
      createWarden({ url, apiKey });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidArgumentError);
    expect((thrown as InvalidArgumentError).message).toMatch(/url/);
  });
});

test("the instance a holder is connected to dies: the lock is renewed through the other one and never lost", async () => {
  const { proxies, urls } = await twoInstances();
  try {
    const resource = await stack.resource("ep-hold", { defaultLeaseMs: 3_000 });
    const client = stack.client({ url: urls, reconnectMaxDelayMs: 300 });
    const lock = await client.acquire(resource, "k", { leaseMs: 3_000 });
    const first = client.endpoint;
    const renewalsBefore = lock.renewals;

    // The instance goes away at once: connections reset, new ones refused.
    await proxyOf(proxies, first).close();
    await until(() => client.state === "open" && client.endpoint !== first, 15_000);
    // Over two leases later the lock is still held, renewed through the other instance.
    await delay(7_000);
    expect(lock.signal.reason).toBeUndefined();
    expect(lock.held).toBe(true);
    expect(lock.renewals).toBeGreaterThan(renewalsBefore + 2);
    const seen = await stack.client().inspect(resource, "k");
    expect(seen?.lockId).toBe(lock.lockId);
    expect(seen?.fence).toBe(lock.fence);
    expect(await stack.client().tryAcquire(resource, "k")).toBeNull();

    await lock.release();
    expect(await stack.client().inspect(resource, "k")).toBeNull();
  } finally {
    await Promise.all(proxies.map((proxy) => proxy.close()));
  }
});

test("an instance stopped gracefully: the holder moves on and keeps its lock", async () => {
  const { proxies, urls } = await twoInstances();
  try {
    const resource = await stack.resource("ep-stop", { defaultLeaseMs: 3_000 });
    const client = stack.client({ url: urls, reconnectMaxDelayMs: 300 });
    const lock = await client.acquire(resource, "k");
    const first = client.endpoint;
    // Stop the instance behind the client's proxy (the proxy stays, the server is gone).
    const stopped = proxyOf(proxies, first) === proxies[0] ? "stack" : "second";
    if (stopped === "stack") await stack.stopServer();
    else await second.stop();
    try {
      await until(() => client.state === "open" && client.endpoint !== first, 15_000);
      await delay(4_000);
      expect(lock.signal.aborted).toBe(false);
      expect((await client.inspect(resource, "k"))?.lockId).toBe(lock.lockId);
      await lock.release();
      expect(await client.inspect(resource, "k")).toBeNull();
    } finally {
      if (stopped === "stack") await stack.startServer();
      else second = await restartSecond();
    }
  } finally {
    await Promise.all(proxies.map((proxy) => proxy.close()));
  }
});

async function restartSecond(): Promise<RunningServer> {
  return startServer(
    loadEnv({
      DATABASE_URL: stack.db.url,
      REDIS_URL: stack.redis.url,
      WARDEN_HOST: "127.0.0.1",
      WARDEN_PORT: new URL(second.http.url).port,
      WARDEN_LOG_LEVEL: "fatal",
      WARDEN_AUDIT_SPOOL_DIR: spool,
      WARDEN_AUDIT_FLUSH_MS: "50",
      WARDEN_TIER_PROBE_INTERVAL_MS: "200",
      WARDEN_SHUTDOWN_GRACE_MS: "500",
      WARDEN_INSTANCE_ID: `sdk-test-b-${uid()}`,
    }),
  );
}

test("a wait issued while the client's instance is gone is queued on the other one and granted", async () => {
  const { proxies, urls } = await twoInstances();
  try {
    const resource = await stack.resource("ep-wait", { fair: true });
    const holderClient = stack.client();
    const holder = await holderClient.acquire(resource, "k");
    const waiter = stack.client({ url: urls, reconnectMaxDelayMs: 300 });
    await until(() => waiter.state === "open", 15_000);
    const first = waiter.endpoint;

    await proxyOf(proxies, first).close();
    // The client noticed: the wait is not sent on the dead socket but on the next one.
    await until(() => waiter.state !== "open", 5_000, 1);
    const waiting = waiter.acquire(resource, "k", { waitMs: 15_000 });
    await until(async () => (await waitersOf(resource, "k")) === 1, 15_000);
    expect(waiter.endpoint).not.toBe(first);
    await holder.release();
    const lock = await waiting;
    expect(lock.held).toBe(true);
    expect(BigInt(lock.fence!)).toBeGreaterThan(BigInt(holder.fence!));
    await lock.release();
  } finally {
    await Promise.all(proxies.map((proxy) => proxy.close()));
  }
});

test("a wait in flight when its instance dies is an unknown outcome, never re-sent; the next wait goes to the other instance", async () => {
  const { proxies, urls } = await twoInstances();
  try {
    const resource = await stack.resource("ep-inflight");
    const holderClient = stack.client();
    const holder = await holderClient.acquire(resource, "k");
    const waiter = stack.client({ url: urls, reconnectMaxDelayMs: 300 });
    const waiting = waiter.acquire(resource, "k", { waitMs: 15_000 });
    await until(async () => (await waitersOf(resource, "k")) === 1, 15_000);
    const first = waiter.endpoint;

    await proxyOf(proxies, first).close();
    await expect(waiting).rejects.toBeInstanceOf(OutcomeUnknownError);
    await until(() => waiter.state === "open" && waiter.endpoint !== first, 15_000);
    // The dead connection's wait left the queue and nothing sent it again.
    await delay(300);
    expect(await waitersOf(resource, "k")).toBe(0);

    const again = waiter.acquire(resource, "k", { waitMs: 15_000 });
    await until(async () => (await waitersOf(resource, "k")) === 1, 15_000);
    await holder.release();
    const lock = await again;
    expect(lock.held).toBe(true);
    await lock.release();
  } finally {
    await Promise.all(proxies.map((proxy) => proxy.close()));
  }
});

test("a waiter's instance shuts down (rolling restart): the wait is withdrawn definitely and continues on the other instance", async () => {
  const { proxies, urls } = await twoInstances();
  const resource = await stack.resource("ep-rolling", { fair: true });
  const waiter = stack.client({ url: urls, reconnectMaxDelayMs: 300 });
  await until(() => waiter.state === "open", 15_000);
  const first = waiter.endpoint;
  const stopped = proxyOf(proxies, first) === proxies[0] ? "stack" : "second";
  // The holder is on the instance that stays.
  const holderClient = stack.client({
    url: stopped === "stack" ? second.http.url : stack.url,
  });
  try {
    const holder = await holderClient.acquire(resource, "k");
    const waiting = waiter.acquire(resource, "k", { waitMs: 20_000 });
    await until(async () => (await waitersOf(resource, "k")) === 1, 15_000);
    if (stopped === "stack") await stack.stopServer();
    else await second.stop();
    await until(() => waiter.state === "open" && waiter.endpoint !== first, 15_000);
    // Queued again, through the other instance, by the SDK itself.
    await until(async () => (await holderClient.waiters(resource, "k")).length === 1, 15_000);
    await holder.release();
    const lock = await waiting;
    expect(lock.held).toBe(true);
    expect(BigInt(lock.fence!)).toBeGreaterThan(BigInt(holder.fence!));
    await lock.release();
  } finally {
    if (stopped === "stack") await stack.startServer();
    else second = await restartSecond();
    await Promise.all(proxies.map((proxy) => proxy.close()));
  }
});

test("an instance that freezes (socket open, nothing answered) is left once the keep-alive notices; with a keep-alive shorter than the lease the lock survives", async () => {
  const { proxies, urls } = await twoInstances();
  try {
    const resource = await stack.resource("ep-frozen", { defaultLeaseMs: 3_000 });
    const client = stack.client({
      url: urls,
      reconnectMaxDelayMs: 300,
      pingIntervalMs: 300,
      pongTimeoutMs: 400,
    });
    const lock = await client.acquire(resource, "k", { leaseMs: 3_000 });
    const first = client.endpoint;
    const renewalsBefore = lock.renewals;

    // Requests still arrive, replies never do, and the TCP connection stays up.
    proxyOf(proxies, first).blackhole = true;
    await until(() => client.state === "open" && client.endpoint !== first, 15_000);
    await delay(7_000);
    expect(lock.signal.reason).toBeUndefined();
    expect(lock.renewals).toBeGreaterThan(renewalsBefore + 2);
    expect((await stack.client().inspect(resource, "k"))?.lockId).toBe(lock.lockId);
    await lock.release();
  } finally {
    await Promise.all(proxies.map((proxy) => proxy.close()));
  }
});
