import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  InvalidArgumentError,
  LeaseLostError,
  LockTimeoutError,
  UnknownResourceError,
} from "../src/index.js";
import { callPartner } from "./recipes/bounded-workers.js";
import { runFixture } from "./support/child.js";
import { startStack, uid, type Stack } from "./support/stack.js";
import { until } from "./support/until.js";

let stack: Stack;
let three: string;
let one: string;
let mutex: string;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  stack = await startStack();
  three = await stack.resource("sem3", { kind: "semaphore", permits: 3 });
  one = await stack.resource("sem1", { kind: "semaphore", permits: 1 });
  mutex = await stack.resource("mutex");
  await stack.register("partner:api", { kind: "semaphore", permits: 2 });
});
afterAll(() => stack?.close());

describe("warden.semaphore", () => {
  test("a bounded hammer from three clients never holds more than the total; fences all distinct", async () => {
    const key = `hammer-${uid()}`;
    const clients = [stack.client(), stack.client(), stack.client()];
    let inside = 0;
    let most = 0;
    const fences: string[] = [];
    await Promise.all(
      Array.from({ length: 9 }, async (_, worker) => {
        const semaphore = clients[worker % 3]!.semaphore(three, key);
        for (let round = 0; round < 4; round++) {
          const permit = await semaphore.acquire({ waitMs: 30_000 });
          inside += 1;
          most = Math.max(most, inside);
          expect(inside).toBeLessThanOrEqual(3);
          fences.push(permit.fence!);
          await sleep(15);
          inside -= 1;
          await permit.release();
        }
      }),
    );
    expect(most).toBeLessThanOrEqual(3);
    expect(most).toBeGreaterThan(1);
    expect(new Set(fences).size).toBe(36);
    expect((await clients[0]!.semaphore(three, key).inspect()).inUse).toBe(0);
  });

  test("a try is refused when full; a waiting acquire is granted on release; fences grow per key", async () => {
    const key = `wait-${uid()}`;
    const warden = stack.client();
    const semaphore = warden.semaphore(three, key);
    const a = await semaphore.acquire({ permits: 2 });
    const b = await semaphore.acquire();
    expect(a.permits).toBe(2);
    expect(await semaphore.tryAcquire()).toBeNull();
    await expect(semaphore.acquire({ waitMs: 200 })).rejects.toBeInstanceOf(LockTimeoutError);
    const waiting = semaphore.acquire({ permits: 2, waitMs: 20_000 });
    await sleep(150);
    await a.release();
    const c = await waiting;
    expect(BigInt(b.fence!)).toBeGreaterThan(BigInt(a.fence!));
    expect(BigInt(c.fence!)).toBeGreaterThan(BigInt(b.fence!));
    const seen = await semaphore.inspect();
    expect(seen.inUse).toBe(3);
    expect(seen.holders.map((h) => h.lockId).sort()).toEqual([b.lockId, c.lockId].sort());
    await Promise.all([b.release(), c.release()]);
  });

  test("a signal gives up a waiting acquire: the server withdraws the wait, the holder keeps its permit", async () => {
    const key = `abort-${uid()}`;
    const semaphore = stack.client().semaphore(one, key);
    const held = await semaphore.acquire();
    const waiters = () => stack.server().services.waiters.list(one, key).length;
    const controller = new AbortController();
    const waiting = semaphore.acquire({ waitMs: 60_000, signal: controller.signal });
    await until(async () => waiters() === 1, 10_000);
    const reason = new Error("the job was cancelled");
    controller.abort(reason);
    // Rejected with the reason, not after the 60 s wait with LOCK_TIMEOUT.
    await expect(waiting).rejects.toBe(reason);
    await until(async () => waiters() === 0, 10_000);
    const seen = await semaphore.inspect();
    expect(seen.holders.map((h) => h.lockId)).toEqual([held.lockId]);
    // An aborted signal sends nothing.
    await expect(semaphore.acquire({ signal: controller.signal })).rejects.toBe(reason);
    await held.release();
    const next = await semaphore.acquire({ waitMs: 5_000, signal: new AbortController().signal });
    await next.release();
  });

  test("the watchdog keeps a permit past several leases; a released permit frees at once", async () => {
    const key = `renew-${uid()}`;
    const warden = stack.client();
    const permit = await warden.semaphore(one, key).acquire({ leaseMs: 600 });
    await sleep(2_500);
    expect(permit.held).toBe(true);
    expect(permit.signal.aborted).toBe(false);
    const other = stack.client().semaphore(one, key);
    expect(await other.tryAcquire()).toBeNull();
    const [holder] = (await other.inspect()).holders;
    expect(holder?.lockId).toBe(permit.lockId);
    expect(holder?.renewals).toBeGreaterThanOrEqual(3);
    await permit.release();
    expect(permit.held).toBe(false);
    const next = await other.tryAcquire();
    expect(next).not.toBeNull();
    await next!.release();
  });

  test("a permit granted after waiting longer than its lease is confirmed, not taken for lost", async () => {
    const key = `long-${uid()}`;
    const semaphore = stack.client().semaphore(one, key);
    const first = await semaphore.acquire({ leaseMs: 5_000 });
    const waiting = semaphore.acquire({ leaseMs: 600, waitMs: 20_000 });
    await sleep(1_500);
    await first.release();
    const late = await waiting;
    await sleep(1_000);
    expect(late.held).toBe(true);
    expect(late.signal.aborted).toBe(false);
    await late.release();
  });

  test("close() releases the client's permits at once: the next client is granted without waiting for the lease", async () => {
    const key = `close-${uid()}`;
    const warden = stack.client();
    const permit = await warden.semaphore(one, key).acquire({ leaseMs: 30_000 });
    await warden.close();
    expect(permit.held).toBe(false);
    const next = await stack.client().semaphore(one, key).tryAcquire();
    expect(next).not.toBeNull();
    await next!.release();
  });

  test("a permit whose client is SIGKILLed frees by its lease, and the next grant has a larger fence", async () => {
    const key = `killed-${uid()}`;
    const child = runFixture("permit-holder", [stack.url, stack.apiKey, one, key, "1500"]);
    const line = await child.line(/^held /);
    const [, lockId, fence] = line.split(" ");
    const semaphore = stack.client().semaphore(one, key);
    expect(await semaphore.tryAcquire()).toBeNull();
    child.process.kill("SIGKILL");
    await child.exited;
    const next = await semaphore.acquire({ waitMs: 10_000 });
    expect(next.lockId).not.toBe(lockId);
    expect(BigInt(next.fence!)).toBeGreaterThan(BigInt(fence!));
    await next.release();
  });

  test("a permit the server no longer has is lost: its signal aborts with LeaseLostError", async () => {
    const key = `lost-${uid()}`;
    const permit = await stack.client().semaphore(one, key).acquire({ leaseMs: 900 });
    // Removed behind the client's back (as a forced release would).
    await stack.admin.semaphore.release.mutate({
      resource: one,
      businessKey: key,
      lockId: permit.lockId,
      tier: permit.tier,
    });
    await until(() => permit.signal.aborted, 5_000);
    expect(permit.signal.reason).toBeInstanceOf(LeaseLostError);
    await permit.release();
  });

  test("bad input is typed and changes nothing", async () => {
    const warden = stack.client();
    const key = `bad-${uid()}`;
    const semaphore = warden.semaphore(three, key);
    await expect(semaphore.acquire({ permits: 0 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(semaphore.acquire({ permits: 4 })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      field: "permits",
    });
    await expect(warden.semaphore(mutex, key).acquire()).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      field: "kind",
    });
    await expect(warden.acquire(three, key)).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      field: "kind",
    });
    await expect(warden.semaphore(`nope:${uid()}`, key).acquire()).rejects.toBeInstanceOf(
      UnknownResourceError,
    );
    expect(await semaphore.inspect()).toMatchObject({ holders: [], inUse: 0 });
    expect(await warden.inspect(mutex, key)).toBeNull();
  });
});

describe("the semaphore recipe, run as written", () => {
  test("README.md quotes test/recipes/bounded-workers.ts verbatim", async () => {
    const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
    const source = await readFile(new URL("./recipes/bounded-workers.ts", import.meta.url), "utf8");
    const section = readme.slice(readme.indexOf("### At most N at a time: `warden.semaphore`"));
    expect(section.length).toBeLessThan(readme.length);
    expect(section).toContain("```ts\n" + source + "```");
  });

  test("callPartner: eight calls from two instances, never more than two in flight", async () => {
    const errors: unknown[] = [];
    const onError = (error: unknown) => errors.push(error);
    const [a, b] = [stack.client({ onError }), stack.client({ onError })];
    let inFlight = 0;
    let most = 0;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        callPartner(i % 2 ? a : b, "acme", async (signal, fence) => {
          inFlight += 1;
          most = Math.max(most, inFlight);
          await sleep(40);
          inFlight -= 1;
          expect(signal.aborted).toBe(false);
          return fence;
        }),
      ),
    );
    expect(most).toBeLessThanOrEqual(2);
    expect(new Set(results).size).toBe(8);
    expect(errors).toEqual([]);
  });
});
