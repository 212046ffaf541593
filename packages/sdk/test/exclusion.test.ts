import { compareFences } from "@warden/core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { hostname } from "node:os";
import {
  LeaseLostError,
  LockTimeoutError,
  SDK_VERSION,
  UnauthorizedError,
  UnknownResourceError,
  type Lock,
} from "../src/index.js";
import { startStack, type Stack } from "./support/stack.js";
import { delay, until } from "./support/until.js";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.close();
});

describe("exclusion and fences", () => {
  test("20 concurrent acquirers across 3 clients: one holder at a time, fences increase", async () => {
    const resource = await stack.resource("excl", { defaultLeaseMs: 5_000 });
    const clients = [stack.client(), stack.client(), stack.client()];
    let inside = 0;
    let maxInside = 0;
    const order: string[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const warden = clients[i % clients.length]!;
        const lock = await warden.acquire(resource, "k", { waitMs: 25_000 });
        try {
          inside += 1;
          maxInside = Math.max(maxInside, inside);
          order.push(lock.fence!);
          await delay(15);
          expect(lock.held).toBe(true);
        } finally {
          inside -= 1;
          await lock.release();
        }
      }),
    );
    expect(maxInside).toBe(1);
    expect(order).toHaveLength(20);
    for (let i = 1; i < order.length; i++) {
      expect(compareFences(order[i]!, order[i - 1]!)).toBeGreaterThan(0);
    }
  });

  test("600 tryAcquires issued at once on one client (more than one WebSocket message may carry) are all answered", async () => {
    const resource = await stack.resource("burst", { defaultLeaseMs: 10_000 });
    const warden = stack.client();
    // Long keys: the calls of one turn are far over the server's 64 KiB message limit.
    const keys = Array.from({ length: 600 }, (_, i) => `${"k".repeat(100)}-${i}`);
    const locks = await Promise.all(keys.map((key) => warden.tryAcquire(resource, key)));
    expect(locks.filter((lock) => lock !== null)).toHaveLength(600);
    expect(warden.state).toBe("open");
    await Promise.all(locks.map((lock) => lock!.release()));
  });

  test("tryAcquire returns null while another client holds the key", async () => {
    const resource = await stack.resource("try");
    // The server's answers, right after the release: without the local short-circuit,
    // whose entry lasts until the release notification reaches b (short-circuit.test.ts).
    const [a, b] = [stack.client(), stack.client({ shortCircuit: false })];
    const lock = await a.acquire(resource, "k");
    expect(await b.tryAcquire(resource, "k")).toBeNull();
    await lock.release();
    const next = await b.tryAcquire(resource, "k");
    expect(next?.tier).toBe("redis");
    await next?.release();
  });

  test("acquire throws LockTimeoutError when waitMs runs out", async () => {
    const resource = await stack.resource("timeout");
    const [a, b] = [stack.client(), stack.client()];
    const lock = await a.acquire(resource, "k");
    const started = performance.now();
    await expect(b.acquire(resource, "k", { waitMs: 300 })).rejects.toBeInstanceOf(
      LockTimeoutError,
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    await lock.release();
  });

  test("release() twice is harmless and frees the key once", async () => {
    const resource = await stack.resource("twice");
    const warden = stack.client();
    const lock = await warden.acquire(resource, "k");
    const first = lock.release();
    const second = lock.release();
    expect(second).toBe(first);
    await first;
    await lock.release();
    expect(await warden.inspect(resource, "k")).toBeNull();
    const other = await stack.client().acquire(resource, "k", { waitMs: 0 });
    await lock.release();
    expect((await warden.inspect(resource, "k"))?.lockId).toBe(other.lockId);
    await other.release();
  });

  test("await using releases the lock when the scope throws", async () => {
    const resource = await stack.resource("using");
    const warden = stack.client();
    let seen: Lock | undefined;
    async function work(): Promise<void> {
      await using lock = await warden.acquire(resource, "k");
      seen = lock;
      expect((await warden.inspect(resource, "k"))?.lockId).toBe(lock.lockId);
      throw new Error("boom");
    }
    await expect(work()).rejects.toThrow("boom");
    expect(seen?.held).toBe(false);
    expect(await warden.inspect(resource, "k")).toBeNull();
  });

  test("maxHoldMs ends an overrunning lock: signal aborts with LeaseLostError and the key is freed", async () => {
    const resource = await stack.resource("maxhold");
    const warden = stack.client();
    const lock = await warden.acquire(resource, "k", { leaseMs: 600, maxHoldMs: 1_000 });
    const aborted = new Promise<unknown>((resolve) =>
      lock.signal.addEventListener("abort", () => resolve(lock.signal.reason)),
    );
    const started = performance.now();
    // The watchdog keeps the 600 ms lease alive past its own length...
    await delay(800);
    expect(lock.held).toBe(true);
    expect(lock.renewals).toBeGreaterThan(0);
    // ...until the hold cap.
    const reason = await aborted;
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(reason).toBeInstanceOf(LeaseLostError);
    await until(async () => (await warden.inspect(resource, "k")) === null, 3_000);
  });

  test("withLock re-enters for nested acquires of the same key and releases at the end", async () => {
    const resource = await stack.resource("reentry");
    const warden = stack.client();
    const result = await warden.withLock(resource, "k", async (outer) => {
      const inner = await warden.acquire(resource, "k", { waitMs: 0 });
      expect(inner.lockId).toBe(outer.lockId);
      await inner.release();
      // The outer lock is still held after the inner release.
      expect((await warden.inspect(resource, "k"))?.lockId).toBe(outer.lockId);
      expect(outer.held).toBe(true);
      return outer.signal instanceof AbortSignal;
    });
    expect(result).toBe(true);
    expect(await warden.inspect(resource, "k")).toBeNull();
  });

  test("independent acquires in one process exclude each other (no accidental re-entry)", async () => {
    const resource = await stack.resource("owners");
    const warden = stack.client();
    const first = await warden.acquire(resource, "k");
    expect(await warden.tryAcquire(resource, "k")).toBeNull();
    const same = await warden.tryAcquire(resource, "k", { ownerId: first.ownerId });
    expect(same?.lockId).toBe(first.lockId);
    await same?.release();
    await first.release();
  });
});

test("the heartbeat tells the server who this client is and which tier it uses", async () => {
  const warden = stack.client({ heartbeatIntervalMs: 200 });
  const resource = await stack.resource("heartbeat");
  await (await warden.acquire(resource, "k")).release();
  const me = await until(
    async () =>
      (await stack.admin.client.list.query({})).find((c) => c.clientId === warden.clientId),
    5_000,
    100,
    "client listed",
  );
  expect(me).toMatchObject({
    host: hostname(),
    pid: process.pid,
    sdkVersion: SDK_VERSION,
    tier: "redis",
    localSince: null,
  });
});

test("a wrong API key and an unknown resource come back as typed errors", async () => {
  const resource = await stack.resource("typed");
  const stranger = stack.client({ apiKey: "wdn_not-a-key" });
  await expect(stranger.acquire(resource, "k", { waitMs: 0 })).rejects.toBeInstanceOf(
    UnauthorizedError,
  );
  const warden = stack.client();
  await expect(warden.acquire(`${resource}-missing`, "k", { waitMs: 0 })).rejects.toBeInstanceOf(
    UnknownResourceError,
  );
  await expect(
    warden.acquire(resource, "k", { leaseMs: 60_000, waitMs: 0 }),
  ).resolves.toMatchObject({
    tier: "redis",
  });
});

test("lock.extend renews now; on a lost lock it throws the LeaseLostError its signal carries", async () => {
  const resource = await stack.resource("extend", { maxRenewals: 1 });
  const warden = stack.client();
  const lock = await warden.acquire(resource, "k", { leaseMs: 3_000 });
  const before = lock.expiresAt;
  await delay(50);
  await lock.extend(20_000);
  expect(lock.expiresAt).toBeGreaterThan(before + 10_000);
  // The resource allows one renewal per grant: it is used.
  await expect(lock.extend()).rejects.toThrow(/^maxRenewals: /);
  await lock.release();
  await expect(lock.extend()).rejects.toBeInstanceOf(LeaseLostError);
});
