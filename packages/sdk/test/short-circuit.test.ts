import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";
import { ShortCircuit } from "../src/shortcircuit/short-circuit.js";
import { monotonicNow } from "../src/time/monotonic.js";
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

/** Counts the acquire commands this process's SDK clients send to the server. */
function countAcquires(): { count: number; stop(): void } {
  const counter = { count: 0, stop: () => undefined as void };
  // eslint-disable-next-line @typescript-eslint/unbound-method -- restored by stop()
  const original = WebSocket.prototype.send;
  WebSocket.prototype.send = function (this: WebSocket, data: unknown, ...rest: unknown[]) {
    if (this.protocol === LOCK_SUBPROTOCOL && typeof data === "string" && /^\[\[\d+,"/.test(data)) {
      for (const [, op] of JSON.parse(data) as [number, string][]) {
        if (op === "acquire") counter.count += 1;
      }
    }
    return (original as (...args: unknown[]) => void).call(this, data, ...rest);
  } as typeof original;
  counter.stop = () => {
    WebSocket.prototype.send = original;
  };
  return counter;
}

describe("SDK short-circuit", () => {
  test("a caller retrying a refused try in a tight loop is granted once the holder of the same client releases", async () => {
    const resource = await stack.resource("sc-loop", { defaultLeaseMs: 30_000 });
    const client = stack.client();
    const lock = await client.acquire(resource, "k", { ownerId: "holder" });
    expect(await client.tryAcquire(resource, "k", { ownerId: "spinner" })).toBeNull();
    // The holder lets go while the spinner retries without pausing: the release has to
    // leave and its notice arrive although the spinner never sleeps.
    const released = delay(50).then(() => lock.release());
    let granted = null;
    for (let i = 0; i < 1_000_000 && granted === null; i++) {
      granted = await client.tryAcquire(resource, "k", { ownerId: "spinner" });
    }
    await released;
    expect(granted).not.toBeNull();
    await granted?.release();
  });

  test("a key seen held is refused locally; a release elsewhere makes the next try reach the server", async () => {
    const resource = await stack.resource("sc", { defaultLeaseMs: 10_000 });
    const [holder, other] = [stack.client(), stack.client()];
    const lock = await holder.acquire(resource, "k");
    expect(await other.tryAcquire(resource, "k")).toBeNull();
    const acquires = countAcquires();
    try {
      for (let i = 0; i < 5; i++) expect(await other.tryAcquire(resource, "k")).toBeNull();
      expect(acquires.count).toBe(0);
      expect(other.stats().shortCircuit).toMatchObject({ refused: 5, cached: 1 });

      await lock.release();
      await until(() => other.stats().shortCircuit.cached === 0, 5_000);
      expect(other.stats().shortCircuit.releasedByServer).toBe(1);
      const next = await other.tryAcquire(resource, "k");
      expect(next).not.toBeNull();
      expect(acquires.count).toBe(1);
      await next!.release();
    } finally {
      acquires.stop();
    }
  });

  test("the entry ends with the observed lease, even without a notification", async () => {
    const resource = await stack.resource("sc-ttl", { defaultLeaseMs: 1_000 });
    const [holder, other] = [stack.client(), stack.client()];
    const lock = await holder.acquire(resource, "k", { leaseMs: 1_000 });
    expect(await other.tryAcquire(resource, "k")).toBeNull();
    expect(other.stats().shortCircuit.cached).toBe(1);
    const acquires = countAcquires();
    try {
      // The holder renews, so the key stays held; the entry still lapses with what was seen.
      await delay(1_100);
      expect(await other.tryAcquire(resource, "k")).toBeNull();
      expect(acquires.count).toBe(1);
    } finally {
      acquires.stop();
    }
    await lock.release();
  });

  test("never on a fair resource, and never when turned off", async () => {
    const fair = await stack.resource("sc-fair", { fair: true });
    const plain = await stack.resource("sc-off");
    const holder = stack.client();
    const other = stack.client({ shortCircuit: { offFor: [plain] } });
    const locks = [await holder.acquire(fair, "k"), await holder.acquire(plain, "k")];
    for (const resource of [fair, plain]) {
      expect(await other.tryAcquire(resource, "k")).toBeNull();
      expect(await other.tryAcquire(resource, "k")).toBeNull();
    }
    expect(other.stats().shortCircuit).toMatchObject({ refused: 0, cached: 0 });
    await Promise.all(locks.map((lock) => lock.release()));
  });

  test("a lost connection forgets every entry (its notifications may be lost too)", async () => {
    const resource = await stack.resource("sc-conn", { defaultLeaseMs: 10_000 });
    const [holder, other] = [stack.client(), stack.client()];
    const lock = await holder.acquire(resource, "k");
    expect(await other.tryAcquire(resource, "k")).toBeNull();
    expect(other.stats().shortCircuit.cached).toBe(1);
    await stack.stopServer();
    await until(() => other.state !== "open", 5_000);
    expect(other.stats().shortCircuit.cached).toBe(0);
    await stack.startServer();
    await until(() => other.state === "open" && holder.state === "open", 10_000);
    await lock.release();
  });

  test("the holder itself is never refused locally (the server would let it re-enter)", () => {
    const cache = new ShortCircuit(() => true);
    const holder = { clientId: "c1", ownerId: "a" };
    cache.remember("r", "k", holder, 5_000, monotonicNow());
    expect(cache.refuse("r", "k", "c1", "b")).toMatchObject({ holder });
    expect(cache.refuse("r", "k", "c1", "a")).toBeNull();
    expect(cache.refuse("r", "k", "c2", "a")).toMatchObject({ holder });
    cache.released([["r", "k"]]);
    expect(cache.refuse("r", "k", "c1", "b")).toBeNull();
    expect(cache.stats).toMatchObject({ refused: 2, cached: 0, releasedByServer: 1 });
  });
});
