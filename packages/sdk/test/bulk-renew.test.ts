import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";
import { scriptCalls } from "@warden/testkit";
import { LeaseLostError, type Lock } from "../src/index.js";
import { LOCK_SUBPROTOCOL } from "../src/transport/lock-socket.js";
import { startStack, type Stack } from "./support/stack.js";
import { delay, until } from "./support/until.js";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.close();
});

/** Counts the bulk renewals this process sends: commands, and leases they carry. */
function countRenewals(): { commands: number; leases: number; stop(): void } {
  const counts = { commands: 0, leases: 0, stop: () => undefined as void };
  // eslint-disable-next-line @typescript-eslint/unbound-method -- restored by stop()
  const original = WebSocket.prototype.send;
  WebSocket.prototype.send = function (this: WebSocket, data: unknown, ...rest: unknown[]) {
    if (this.protocol === LOCK_SUBPROTOCOL && typeof data === "string" && /^\[\[\d+,"/.test(data)) {
      for (const [, op, input] of JSON.parse(data) as [number, string, { items?: unknown[] }][]) {
        if (op === "renew") {
          counts.commands += 1;
          counts.leases += input.items?.length ?? 0;
        }
        // Single renewals must not be used any more.
        if (op === "extend") counts.commands += 1_000;
      }
    }
    return (original as (...args: unknown[]) => void).call(this, data, ...rest);
  } as typeof original;
  counts.stop = () => {
    WebSocket.prototype.send = original;
  };
  return counts;
}

describe("bulk renewals", () => {
  test("a client's renewals leave together: few renew commands carry many leases", async () => {
    const resource = await stack.resource("bulk", { defaultLeaseMs: 3_000 });
    const warden = stack.client();
    const counts = countRenewals();
    const locks: Lock[] = [];
    try {
      // Taken over 1.2 s, so their renewals are not due at the same instant.
      for (let i = 0; i < 24; i++) {
        locks.push((await warden.tryAcquire(resource, `k${i}`))!);
        await delay(50);
      }
      await delay(4_000);
    } finally {
      counts.stop();
    }
    expect(locks.every((lock) => lock.held)).toBe(true);
    // Every lease renewed at least three times (every second for 4+ s)...
    expect(counts.leases).toBeGreaterThanOrEqual(24 * 3);
    // ...in batches: without the clock each renewal would be its own command.
    expect(counts.commands * 4).toBeLessThanOrEqual(counts.leases);
    await Promise.all(locks.map((lock) => lock.release()));
  });

  test("a lease the store refuses fails alone; the others of the batch stay held", async () => {
    const resource = await stack.resource("bulk-loss", { defaultLeaseMs: 1_500 });
    const warden = stack.client();
    const locks = await Promise.all(
      ["a", "b", "c"].map(async (key) => (await warden.tryAcquire(resource, key))!),
    );
    const lost = locks[1]!;
    await stack.server().services.locks.forceRelease({
      resource,
      businessKey: lost.businessKey,
      lockId: lost.lockId,
    });
    await until(() => lost.signal.aborted, 5_000);
    expect(lost.signal.reason).toBeInstanceOf(LeaseLostError);
    // Two more renewal periods: the others keep being renewed.
    await delay(1_200);
    expect(locks[0]!.held).toBe(true);
    expect(locks[2]!.held).toBe(true);
    expect(lost.held).toBe(false);
    await Promise.all(locks.map((lock) => lock.release()));
  });

  test("a bulk renewal of many leases reaches Redis as a batch script call, not one per lease", async () => {
    const resource = await stack.resource("bulk-redis", { defaultLeaseMs: 5_000 });
    const warden = stack.client();
    const locks = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => (await warden.tryAcquire(resource, `k${i}`))!),
    );
    const raw = stack.redis.client();
    try {
      const before = await scriptCalls(raw);
      // One turn's extends: one renew command with 40 items, 40 extends in the server's turn.
      await Promise.all(locks.map((lock) => lock.extend(20_000)));
      const calls = (await scriptCalls(raw)) - before;
      // The first extend alone, the other 39 in one call (decision 0213); a heartbeat's
      // write may land in the window too. One call per lease would be 40.
      expect(calls).toBeLessThanOrEqual(4);
      for (const lock of locks)
        expect((await warden.inspect(resource, lock.businessKey))!.ttlMs).toBeGreaterThan(10_000);
    } finally {
      raw.disconnect();
    }
    await Promise.all(locks.map((lock) => lock.release()));
  });

  test("lock.extend still renews now, through the bulk command", async () => {
    const resource = await stack.resource("bulk-extend", { defaultLeaseMs: 5_000 });
    const warden = stack.client();
    const lock = (await warden.tryAcquire(resource, "k"))!;
    const counts = countRenewals();
    try {
      await lock.extend(20_000);
    } finally {
      counts.stop();
    }
    expect(counts).toMatchObject({ commands: 1, leases: 1 });
    const info = await warden.inspect(resource, "k");
    expect(info!.ttlMs).toBeGreaterThan(10_000);
    await lock.release();
  });
});
