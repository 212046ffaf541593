import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";
import type { RwLease } from "../src/index.js";
import { LOCK_SUBPROTOCOL } from "../src/transport/lock-socket.js";
import { startStack, uid, type Stack } from "./support/stack.js";
import { delay, until } from "./support/until.js";

// Read-write grants renew in the lock socket's bulk `renew` command when the server names
// `rwlock` items in its `limits` push, and by single calls when it does not
// (docs/decisions/0211); real server, Redis and MariaDB.

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.close();
});

/**
 * Counts how this process renews: `renew` commands carrying read-write items (and the
 * items), lock items of `renew` commands, and single `rwlock.extend` calls.
 */
function countRwRenewals() {
  const counts = {
    commands: 0,
    renewals: 0,
    lockItems: 0,
    calls: 0,
    stop: () => undefined as void,
  };
  // eslint-disable-next-line @typescript-eslint/unbound-method -- restored by stop()
  const original = WebSocket.prototype.send;
  WebSocket.prototype.send = function (this: WebSocket, data: unknown, ...rest: unknown[]) {
    if (this.protocol === LOCK_SUBPROTOCOL && typeof data === "string" && /^\[\[\d+,"/.test(data)) {
      for (const [, op, input] of JSON.parse(data) as [number, string, unknown][]) {
        if (op === "call" && Array.isArray(input) && input[1] === "rwlock.extend") {
          counts.calls += 1;
        }
        if (op !== "renew") continue;
        const items = (input as { items: { kind?: string }[] }).items;
        counts.lockItems += items.filter((item) => item.kind === undefined).length;
        const rw = items.filter((item) => item.kind === "rwlock");
        if (rw.length === 0) continue;
        counts.commands += 1;
        counts.renewals += rw.length;
      }
    }
    return (original as (...args: unknown[]) => void).call(this, data, ...rest);
  } as typeof original;
  counts.stop = () => {
    WebSocket.prototype.send = original;
  };
  return counts;
}

/** Makes every lock socket's `limits` push say nothing of renew kinds, as an older server's. */
function hideRenewKinds(): () => void {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- restored by the returned call
  const original = WebSocket.prototype.emit;
  WebSocket.prototype.emit = function (
    this: WebSocket,
    event: string | symbol,
    ...args: unknown[]
  ) {
    const [data] = args;
    const text =
      event === "message" && this.protocol === LOCK_SUBPROTOCOL && Buffer.isBuffer(data)
        ? data.toString("utf8")
        : "";
    if (text.includes('"limits"')) {
      const entries = JSON.parse(text) as unknown;
      for (const entry of Array.isArray(entries) ? (entries as unknown[][]) : []) {
        if (entry[0] === 0 && entry[1] === "limits") {
          delete (entry[2] as { renewKinds?: unknown }).renewKinds;
        }
      }
      args[0] = Buffer.from(JSON.stringify(entries));
    }
    return (original as (...a: unknown[]) => boolean).call(this, event, ...args);
  } as typeof original;
  return () => {
    WebSocket.prototype.emit = original;
  };
}

describe("read-write grant renewals", () => {
  test("a client's read and write grant renewals ride the bulk renew command: few commands carry many grants", async () => {
    const resource = await stack.resource("rw-bulk", { kind: "rwlock", defaultLeaseMs: 3_000 });
    const warden = stack.client();
    const counts = countRwRenewals();
    const leases: RwLease[] = [];
    try {
      // Taken over 1.2 s, so their renewals are not due at the same instant.
      for (let i = 0; i < 24; i++) {
        const lock = warden.rwLock(resource, i < 20 ? `r${i % 3}` : `w${i}`);
        leases.push((i < 20 ? await lock.tryRead() : await lock.tryWrite())!);
        await delay(50);
      }
      await delay(4_000);
    } finally {
      counts.stop();
    }
    expect(leases.every((lease) => lease.held)).toBe(true);
    expect(leases.filter((lease) => lease.mode === "write")).toHaveLength(4);
    // Every grant renewed at least three times (every second for 4+ s)...
    expect(counts.renewals).toBeGreaterThanOrEqual(24 * 3);
    // ...in batches of the bulk command, never as single calls.
    expect(counts.commands * 4).toBeLessThanOrEqual(counts.renewals);
    expect(counts.calls).toBe(0);
    await Promise.all(leases.map((lease) => lease.release()));
    await warden.close();
  });

  test("a server that does not name rwlock items gets none: read-write grants renew by call, locks still in bulk", async () => {
    const resource = await stack.resource("rw-old", { kind: "rwlock", defaultLeaseMs: 1_500 });
    const mutex = await stack.resource("rw-old-mutex", { defaultLeaseMs: 1_500 });
    const restore = hideRenewKinds();
    const counts = countRwRenewals();
    const warden = stack.client();
    try {
      const read = await warden.rwLock(resource, `old-${uid()}`).read();
      const write = await warden.rwLock(resource, `old-${uid()}`).write();
      const lock = await warden.acquire(mutex, `old-${uid()}`);
      // Three renewal periods, each grant renewed by a call every half second or so.
      await until(() => counts.calls >= 6, 10_000);
      expect(read.held && write.held && lock.held).toBe(true);
      expect(counts.renewals).toBe(0);
      expect(counts.lockItems).toBeGreaterThanOrEqual(2);
      await Promise.all([read.release(), write.release(), lock.release()]);
    } finally {
      counts.stop();
      restore();
      await warden.close();
    }
  });
});
