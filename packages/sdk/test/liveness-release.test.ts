// Liveness-bound release (docs/decisions/0150) seen from the SDK: a client cut off from every
// server instance past a resource's releaseOnDisconnectMs loses its lock there (the next
// holder's fence is larger, the old holder's fenced write is stale, and once it reconnects
// its lock's signal aborts as lease lost); a client that fails over to another instance
// within the grace keeps its lock and goes on renewing it.
import { createServer, connect, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadEnv, startServer, type RunningServer } from "@warden/server";
import { freePort } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { LeaseLostError, compareFences, fencedUpdate, type Lock } from "../src/index.js";
import { createLedger, type Ledger } from "./support/ledger.js";
import { startStack, uid, type Stack } from "./support/stack.js";
import { until } from "./support/until.js";

let stack: Stack;
let second: RunningServer;
let spool: string;
let ledger: Ledger;
const gates: Gate[] = [];

beforeAll(async () => {
  stack = await startStack();
  spool = await mkdtemp(join(tmpdir(), "warden-sdk-liveness-"));
  second = await startServer(
    loadEnv({
      DATABASE_URL: stack.db.url,
      REDIS_URL: stack.redis.url,
      WARDEN_HOST: "127.0.0.1",
      WARDEN_PORT: String(await freePort()),
      WARDEN_LOG_LEVEL: "fatal",
      WARDEN_AUDIT_SPOOL_DIR: spool,
      WARDEN_AUDIT_FLUSH_MS: "50",
      WARDEN_SHUTDOWN_GRACE_MS: "500",
      WARDEN_INSTANCE_ID: `sdk-liveness-b-${uid()}`,
    }),
  );
  ledger = await createLedger(stack.db.url);
});

afterAll(async () => {
  await Promise.allSettled(gates.map((gate) => gate.close()));
  await ledger?.close();
  await stack?.close();
  await second?.stop();
  if (spool) await rm(spool, { recursive: true, force: true });
});

/** A TCP gate in front of one instance: shut, it drops every connection and refuses new ones. */
interface Gate {
  readonly url: string;
  shut(): void;
  open(): void;
  close(): Promise<void>;
}

async function gate(targetUrl: string): Promise<Gate> {
  const targetPort = Number(new URL(targetUrl).port);
  const sockets = new Set<Socket>();
  let shut = false;
  const server: Server = createServer((client) => {
    if (shut) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, "127.0.0.1");
    sockets.add(client);
    sockets.add(upstream);
    client.on("data", (chunk) => upstream.write(chunk));
    upstream.on("data", (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", end);
    upstream.on("close", end);
    client.on("error", end);
    upstream.on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const made: Gate = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    shut() {
      shut = true;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    open() {
      shut = false;
    },
    async close() {
      made.shut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  gates.push(made);
  return made;
}

async function resource(releaseOnDisconnectMs: number): Promise<string> {
  const name = `live-${uid()}`;
  await stack.admin.resource.create.mutate({
    name,
    defaultLeaseMs: 20_000,
    maxLeaseMs: 60_000,
    maxRenewals: null,
    expectedHoldMs: null,
    releaseOnDisconnectMs,
    degrade: true,
    localFallback: "deny",
    fair: false,
    waitReplicas: 0,
    description: "sdk liveness",
  });
  return name;
}

test("cut off from every instance past the grace: the lock goes to the next holder, the old fence is stale, and the old lock aborts as lease lost", async () => {
  const name = await resource(500);
  const door = await gate(stack.url);
  const a = stack.client({ url: door.url, reconnectMaxDelayMs: 300 });
  const lockA = await a.acquire(name, "order-1", { leaseMs: 20_000 });
  await ledger.insert(1, 0);
  expect(
    (
      await fencedUpdate(ledger.pool, lockA, {
        table: ledger.table,
        set: { value: 1 },
        where: { id: 1 },
      })
    ).outcome,
  ).toBe("applied");

  door.shut();
  // Another client gets the key long before A's 20 s lease would have run out.
  const b = stack.client();
  const lockB: Lock = await until(
    () => b.tryAcquire(name, "order-1"),
    15_000,
    100,
    "the key freed",
  );
  expect(compareFences(lockB.fence!, lockA.fence!)).toBeGreaterThan(0);
  const released = await until(
    async () =>
      (await stack.admin.event.search.query({ resource: name, type: "force-release" })).events.find(
        (event) => event.lockId === lockA.lockId,
      ),
    10_000,
    100,
    "the release audited",
  );
  expect(released.actor).toBe("warden:liveness");
  expect(released.reason).toContain("holder disconnected");

  // B's fenced write lands; A's (a holder that has not noticed yet) is stale.
  expect(
    (
      await fencedUpdate(ledger.pool, lockB, {
        table: ledger.table,
        set: { value: 2 },
        where: { id: 1 },
      })
    ).outcome,
  ).toBe("applied");
  expect(
    await fencedUpdate(ledger.pool, lockA, {
      table: ledger.table,
      set: { value: 3 },
      where: { id: 1 },
    }),
  ).toEqual({ outcome: "stale", currentFence: lockB.fence });
  expect(await ledger.value(1)).toBe(2);

  // A reaches the server again: its next renewal is refused and its lock's signal aborts.
  door.open();
  await until(() => lockA.signal.aborted, 30_000, 100, "A's lock aborted");
  expect(lockA.signal.reason).toBeInstanceOf(LeaseLostError);
  expect((await b.inspect(name, "order-1"))?.lockId).toBe(lockB.lockId);
  await lockB.release();
});

test("a failover to another instance within the grace keeps the lock, renewed there", async () => {
  const name = await resource(3_000);
  const doors = [await gate(stack.url), await gate(second.http.url)];
  const client = stack.client({ url: doors.map((door) => door.url), reconnectMaxDelayMs: 300 });
  const lock = await client.acquire(name, "k", { leaseMs: 20_000 });
  const first = client.endpoint;
  // A control client on its own gate, cut off at the same moment for good.
  const controlDoor = await gate(stack.url);
  const control = stack.client({ url: controlDoor.url, reconnectMaxDelayMs: 300 });
  const controlLock = await control.acquire(name, "control", { leaseMs: 20_000 });

  const firstDoor = doors.find((door) => first.includes(new URL(door.url).host))!;
  firstDoor.shut();
  controlDoor.shut();
  await until(() => client.state === "open" && client.endpoint !== first, 15_000);
  const renewalsBefore = lock.renewals;

  // The control's grace passes and its lock is released; the moved client's is not.
  const observer = stack.client();
  await until(
    async () => (await observer.inspect(name, "control")) === null,
    20_000,
    100,
    "the control's lock released",
  );
  expect(controlLock.lockId).toBeDefined();
  const seen = await observer.inspect(name, "k");
  expect(seen?.lockId).toBe(lock.lockId);
  expect(seen?.fence).toBe(lock.fence);
  // Renewed through the other instance, same grant.
  await until(() => lock.renewals > renewalsBefore, 20_000, 100, "a renewal after the failover");
  expect(lock.held).toBe(true);
  expect(lock.signal.aborted).toBe(false);
  expect((await observer.inspect(name, "k"))?.lockId).toBe(lock.lockId);
  await lock.release();
  expect(await observer.inspect(name, "k")).toBeNull();
});
