import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";
import { LeaseLostError, type Permit } from "../src/index.js";
import { LOCK_SUBPROTOCOL } from "../src/transport/lock-socket.js";
import { startStack, uid, type Stack } from "./support/stack.js";
import { delay, until } from "./support/until.js";

// Permit renewals ride the client's renewal clock (docs/decisions/0162), and the server
// enforces the resource's maxRenewals for permits; real server, Redis and MariaDB.

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.close();
});

/**
 * Counts how this process renews permits: `renew` commands carrying permit items (and the
 * items), and single `semaphore.extend` calls. With `stripKind`, permit items leave without
 * their `kind`, as a server that does not know them would read them.
 */
function countPermitRenewals(stripKind = false) {
  const counts = { commands: 0, renewals: 0, calls: 0, stop: () => undefined as void };
  // eslint-disable-next-line @typescript-eslint/unbound-method -- restored by stop()
  const original = WebSocket.prototype.send;
  WebSocket.prototype.send = function (this: WebSocket, data: unknown, ...rest: unknown[]) {
    let out = data;
    if (this.protocol === LOCK_SUBPROTOCOL && typeof data === "string" && /^\[\[\d+,"/.test(data)) {
      const commands = JSON.parse(data) as [number, string, unknown][];
      for (const [, op, input] of commands) {
        if (op === "call" && Array.isArray(input) && input[1] === "semaphore.extend") {
          counts.calls += 1;
        }
        if (op !== "renew") continue;
        const items = (input as { items: { kind?: string }[] }).items;
        const permits = items.filter((item) => item.kind === "permit");
        if (permits.length === 0) continue;
        counts.commands += 1;
        counts.renewals += permits.length;
        if (stripKind) for (const item of permits) delete item.kind;
      }
      if (stripKind) out = JSON.stringify(commands);
    }
    return (original as (...args: unknown[]) => void).call(this, out, ...rest);
  } as typeof original;
  counts.stop = () => {
    WebSocket.prototype.send = original;
  };
  return counts;
}

describe("permit renewals", () => {
  test("a client's permit renewals ride the bulk renew command: few commands carry many permits", async () => {
    const resource = await stack.resource("sem-bulk", {
      kind: "semaphore",
      permits: 100,
      defaultLeaseMs: 3_000,
    });
    const warden = stack.client();
    const counts = countPermitRenewals();
    const permits: Permit[] = [];
    try {
      // Taken over 1.2 s, so their renewals are not due at the same instant.
      for (let i = 0; i < 24; i++) {
        permits.push((await warden.semaphore(resource, `k${i % 3}`).tryAcquire())!);
        await delay(50);
      }
      await delay(4_000);
    } finally {
      counts.stop();
    }
    expect(permits.every((permit) => permit.held)).toBe(true);
    // Every permit renewed at least three times (every second for 4+ s)...
    expect(counts.renewals).toBeGreaterThanOrEqual(24 * 3);
    // ...in batches of the bulk command, never as single calls.
    expect(counts.commands * 4).toBeLessThanOrEqual(counts.renewals);
    expect(counts.calls).toBe(0);
    await Promise.all(permits.map((permit) => permit.release()));
    await warden.close();
  });

  test("a server that does not know permit items refuses them on kind: the permit renews by call and stays held", async () => {
    const resource = await stack.resource("sem-old", {
      kind: "semaphore",
      permits: 2,
      defaultLeaseMs: 1_500,
    });
    const warden = stack.client();
    const counts = countPermitRenewals(true);
    try {
      const permit = await warden.semaphore(resource, `old-${uid()}`).acquire();
      // Three renewal periods: the first bulk try is refused, then calls keep it.
      await until(() => counts.calls >= 3, 10_000);
      expect(permit.held).toBe(true);
      expect(counts.renewals).toBe(1);
      await permit.release();
    } finally {
      counts.stop();
      await warden.close();
    }
  });

  test("the server refuses a renewal past the resource's maxRenewals: the permit is lost and the key frees", async () => {
    const resource = await stack.resource("sem-max", {
      kind: "semaphore",
      permits: 1,
      defaultLeaseMs: 3_000,
      maxRenewals: 2,
    });
    const warden = stack.client();
    const key = `max-${uid()}`;
    const permit = await warden.semaphore(resource, key).acquire();
    // Explicit renewals are sent whatever the watchdog counted: with the watchdog's own,
    // the store sees two, and the next one is refused by the server itself.
    let refused: unknown = null;
    for (let i = 0; i < 3 && refused === null; i++) {
      refused = await permit.extend().then(
        () => null,
        (error: unknown) => error,
      );
    }
    expect(refused).toBeInstanceOf(LeaseLostError);
    expect((refused as Error).message).toContain("renewal limit");
    const seen = await warden.semaphore(resource, key).inspect();
    expect(seen.holders).toMatchObject([{ lockId: permit.lockId, renewals: 2 }]);
    await until(() => permit.signal.aborted, 10_000);
    expect(permit.signal.reason).toBeInstanceOf(LeaseLostError);
    // It ran out with its lease: another client gets the only permit.
    const other = stack.client();
    const next = await other.semaphore(resource, key).acquire({ waitMs: 10_000 });
    expect(BigInt(next.fence!)).toBeGreaterThan(BigInt(permit.fence!));
    await next.release();
    await other.close();
    await warden.close();
  });
});
