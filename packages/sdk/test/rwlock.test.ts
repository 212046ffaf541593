import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  InvalidArgumentError,
  LeaseLostError,
  LockTimeoutError,
  UnknownResourceError,
  type Warden,
} from "../src/index.js";
import { readPrices, rewritePrices } from "./recipes/shared-config.js";
import { runFixture } from "./support/child.js";
import { startStack, uid, type Stack } from "./support/stack.js";
import { delay, until } from "./support/until.js";

let stack: Stack;
let rw: string;
let mutex: string;
let semaphore: string;

beforeAll(async () => {
  stack = await startStack();
  rw = await stack.resource("rw", { kind: "rwlock", maxLeaseMs: 30_000 });
  mutex = await stack.resource("mutex");
  semaphore = await stack.resource("sem", { kind: "semaphore", permits: 2 });
  await stack.register("config:prices", { kind: "rwlock" });
});
afterAll(() => stack?.close());

/** Readers and writers of one key from several clients; checks exclusion and the fence rule. */
async function hammer(clients: Warden[], resource: string, key: string) {
  let readers = 0;
  let writers = 0;
  let mostReaders = 0;
  let highest = 0n;
  const violations: string[] = [];
  const writeFences: bigint[] = [];
  await Promise.all(
    Array.from({ length: 8 }, async (_, worker) => {
      const lock = clients[worker % clients.length]!.rwLock(resource, key);
      const writer = worker < 2;
      for (let round = 0; round < 5; round++) {
        const lease = writer
          ? await lock.write({ waitMs: 60_000 })
          : await lock.read({ waitMs: 60_000 });
        const fence = BigInt(lease.fence!);
        if (writer) {
          writers += 1;
          if (writers > 1 || readers > 0)
            violations.push(`writer with ${writers - 1}w/${readers}r`);
          // A write fence exceeds every fence granted on the key before it.
          if (fence <= highest) violations.push(`write fence ${fence} not above ${highest}`);
          writeFences.push(fence);
        } else {
          readers += 1;
          mostReaders = Math.max(mostReaders, readers);
          if (writers > 0) violations.push("reader with a writer");
          // A read fence exceeds every earlier write fence.
          if (writeFences.some((w) => fence < w)) violations.push(`read fence ${fence} stale`);
        }
        if (fence > highest) highest = fence;
        await delay(writer ? 5 : 15);
        if (writer) writers -= 1;
        else readers -= 1;
        await lease.release();
      }
    }),
  );
  return { violations, mostReaders, writeFences };
}

describe("warden.rwLock", () => {
  test("readers share the key, a writer has it alone; fences follow the rule (Redis tier)", async () => {
    const clients = [stack.client(), stack.client(), stack.client()];
    const { violations, mostReaders, writeFences } = await hammer(clients, rw, `h-${uid()}`);
    expect(violations).toEqual([]);
    expect(mostReaders).toBeGreaterThan(1);
    expect(new Set(writeFences).size).toBe(10);
  });

  test("tryRead/tryWrite answer null when the key is taken; a waiting writer is granted on release", async () => {
    const key = `try-${uid()}`;
    const lock = stack.client().rwLock(rw, key);
    const other = stack.client().rwLock(rw, key);
    const r1 = await lock.read();
    const r2 = await other.read();
    expect(r1.mode).toBe("read");
    expect(r2.fence).toBe(r1.fence);
    expect(await other.tryWrite()).toBeNull();
    await expect(other.write({ waitMs: 200 })).rejects.toBeInstanceOf(LockTimeoutError);
    // The writer that gave up withdraws its intent (decision 0197), a moment after its
    // answer; wait until it is gone, so the waiting writer counted below is the next one and
    // no stale intent refuses the read after the write.
    await until(async () => (await lock.inspect()).waitingWriters === 0, 10_000);
    const writing = other.write({ waitMs: 20_000 });
    // The waiting writer stops new readers (writer preference).
    await until(async () => (await lock.inspect()).waitingWriters === 1, 10_000);
    expect(await lock.tryRead()).toBeNull();
    await Promise.all([r1.release(), r2.release()]);
    const w = await writing;
    expect(w.mode).toBe("write");
    expect(BigInt(w.fence!)).toBeGreaterThan(BigInt(r1.fence!));
    expect(await lock.tryRead()).toBeNull();
    const seen = await lock.inspect();
    expect(seen.writer?.lockId).toBe(w.lockId);
    expect(seen.readers).toEqual([]);
    await w.release();
    const after = await lock.tryRead();
    expect(BigInt(after!.fence!)).toBeGreaterThan(BigInt(w.fence!));
    await after!.release();
  });

  test("a signal gives up a waiting read or write: the server withdraws the wait, the holder keeps the key", async () => {
    const key = `abort-${uid()}`;
    const lock = stack.client().rwLock(rw, key);
    const writer = await lock.write();
    const waiters = () => stack.server().services.waiters.list(rw, key).length;
    for (const mode of ["read", "write"] as const) {
      const controller = new AbortController();
      const options = { waitMs: 60_000, signal: controller.signal };
      const waiting = mode === "read" ? lock.read(options) : lock.write(options);
      await until(async () => waiters() === 1, 10_000);
      const reason = new Error(`gave up the ${mode}`);
      controller.abort(reason);
      await expect(waiting).rejects.toBe(reason);
      await until(async () => waiters() === 0, 10_000);
    }
    expect((await lock.inspect()).writer?.lockId).toBe(writer.lockId);
    await writer.release();
  });

  test("a writer that gives up (timeout or signal) withdraws its intent: new readers get in at once", async () => {
    const key = `gave-up-${uid()}`;
    const lock = stack.client().rwLock(rw, key);
    const other = stack.client().rwLock(rw, key);
    const held = await lock.read();
    // A new reader is granted within 1 s, well before the intent would lapse by itself.
    const readerGetsIn = () =>
      until(
        async () => {
          const reader = await other.tryRead();
          if (!reader) return false;
          await reader.release();
          return true;
        },
        1_000,
        25,
        "a new reader granted",
      );

    await expect(other.write({ waitMs: 200 })).rejects.toBeInstanceOf(LockTimeoutError);
    await readerGetsIn();

    const controller = new AbortController();
    const waiting = other.write({ waitMs: 60_000, signal: controller.signal });
    await until(async () => (await lock.inspect()).waitingWriters === 1, 10_000);
    expect(await other.tryRead()).toBeNull();
    const reason = new Error("gave up the write");
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    await readerGetsIn();

    const seen = await lock.inspect();
    expect(seen.waitingWriters).toBe(0);
    expect(seen.writer).toBeNull();
    expect(seen.readers.map((g) => g.lockId)).toEqual([held.lockId]);
    await held.release();
  });

  test("the watchdog keeps a read lock past several leases; a released one frees at once", async () => {
    const key = `renew-${uid()}`;
    const lease = await stack.client().rwLock(rw, key).read({ leaseMs: 600 });
    await delay(2_500);
    expect(lease.held).toBe(true);
    expect(lease.signal.aborted).toBe(false);
    const other = stack.client().rwLock(rw, key);
    expect(await other.tryWrite()).toBeNull();
    const [reader] = (await other.inspect()).readers;
    expect(reader?.lockId).toBe(lease.lockId);
    expect(reader?.renewals).toBeGreaterThanOrEqual(3);
    await lease.release();
    expect(lease.held).toBe(false);
    const next = await other.tryWrite();
    expect(next).not.toBeNull();
    await next!.release();
  });

  test("a read lock granted after waiting longer than its lease is confirmed, not taken for lost", async () => {
    const key = `long-${uid()}`;
    const lock = stack.client().rwLock(rw, key);
    const writer = await lock.write({ leaseMs: 5_000 });
    const waiting = lock.read({ leaseMs: 600, waitMs: 20_000 });
    await delay(1_500);
    await writer.release();
    const late = await waiting;
    await delay(1_000);
    expect(late.held).toBe(true);
    expect(late.signal.aborted).toBe(false);
    await late.release();
  });

  test("a read lock whose client is SIGKILLed frees by its lease; the next writer's fence is larger", async () => {
    const key = `killed-${uid()}`;
    const child = runFixture("rw-holder", [stack.url, stack.apiKey, rw, key, "read", "1500"]);
    const line = await child.line(/^held /);
    const [, lockId, fence] = line.split(" ");
    const lock = stack.client().rwLock(rw, key);
    expect(await lock.tryWrite()).toBeNull();
    // Another reader still enters beside it, with the same read fence.
    const beside = await lock.tryRead();
    expect(beside?.fence).toBe(fence);
    await beside!.release();
    child.process.kill("SIGKILL");
    await child.exited;
    const next = await lock.write({ waitMs: 10_000 });
    expect(next.lockId).not.toBe(lockId);
    expect(BigInt(next.fence!)).toBeGreaterThan(BigInt(fence!));
    await next.release();
  });

  test("a grant the server no longer has is lost: its signal aborts with LeaseLostError", async () => {
    const key = `lost-${uid()}`;
    const lease = await stack.client().rwLock(rw, key).write({ leaseMs: 900 });
    // Removed behind the client's back (as a forced release would).
    await stack.admin.rwlock.release.mutate({
      resource: rw,
      businessKey: key,
      lockId: lease.lockId,
      tier: lease.tier,
    });
    await until(() => lease.signal.aborted, 5_000);
    expect(lease.signal.reason).toBeInstanceOf(LeaseLostError);
    expect(lease.held).toBe(false);
    await lease.release();
  });

  test("close() releases the client's read and write grants at once", async () => {
    const warden = stack.client();
    const [k1, k2] = [`close-a-${uid()}`, `close-b-${uid()}`];
    const read = await warden.rwLock(rw, k1).read({ leaseMs: 30_000 });
    const write = await warden.rwLock(rw, k2).write({ leaseMs: 30_000 });
    await warden.close();
    expect(read.held).toBe(false);
    expect(write.held).toBe(false);
    const other = stack.client();
    for (const key of [k1, k2]) {
      const next = await other.rwLock(rw, key).tryWrite();
      expect(next).not.toBeNull();
      await next!.release();
    }
  });

  test("bad input and the wrong kind are typed and change nothing", async () => {
    const warden = stack.client();
    const key = `bad-${uid()}`;
    const lock = warden.rwLock(rw, key);
    await expect(lock.read({ waitMs: -1 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(lock.write({ leaseMs: 0 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(lock.read({ leaseMs: 40_000 })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      field: "leaseMs",
    });
    expect(() => warden.rwLock(rw, "")).toThrow(InvalidArgumentError);
    for (const call of [
      () => warden.rwLock(mutex, key).read(),
      () => warden.rwLock(semaphore, key).tryWrite(),
      () => warden.acquire(rw, key),
      () => warden.semaphore(rw, key).tryAcquire(),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: "INVALID_ARGUMENT", field: "kind" });
    }
    await expect(warden.rwLock(`nope:${uid()}`, key).read()).rejects.toBeInstanceOf(
      UnknownResourceError,
    );
    expect(await lock.inspect()).toMatchObject({ writer: null, readers: [], waitingWriters: 0 });
    expect(await warden.inspect(mutex, key)).toBeNull();
  });

  test("on the MySQL tier: readers share, the watchdog renews, a writer waits for them", async () => {
    const locks = stack.server().services.locks;
    await locks.override("mysql", "sdk-rwlock-test", "read-write locks on MySQL");
    try {
      await until(() => locks.tier === "mysql", 10_000);
      const key = `mysql-${uid()}`;
      const [a, b] = [stack.client().rwLock(rw, key), stack.client().rwLock(rw, key)];
      const r1 = await a.read({ leaseMs: 600 });
      const r2 = await b.read({ leaseMs: 600 });
      expect(r1.tier).toBe("mysql");
      expect(r2.fence).toBe(r1.fence);
      const writing = b.write({ waitMs: 20_000 });
      await delay(1_500);
      expect(r1.held && r2.held).toBe(true);
      const seen = await a.inspect();
      expect(seen.readers.map((r) => r.lockId).sort()).toEqual([r1.lockId, r2.lockId].sort());
      expect(seen.waitingWriters).toBe(1);
      await Promise.all([r1.release(), r2.release()]);
      const w = await writing;
      expect(w.tier).toBe("mysql");
      expect(BigInt(w.fence!)).toBeGreaterThan(BigInt(r1.fence!));
      await w.release();
      const { violations } = await hammer([stack.client(), stack.client()], rw, `mh-${uid()}`);
      expect(violations).toEqual([]);
      // A resource that does not degrade is refused on MySQL, and the SDK is told why.
      const strict = await stack.resource(`strict-${uid()}`, { degrade: false });
      await expect(stack.client().tryAcquire(strict, key)).rejects.toMatchObject({
        name: "LockUnavailableError",
        reason: "fail-closed",
      });
    } finally {
      await locks.override("redis", "sdk-rwlock-test", "back to Redis");
      await locks.override(null, "sdk-rwlock-test", "automatic");
    }
  });
});

describe("the read-write lock recipe, run as written", () => {
  test("README.md quotes test/recipes/shared-config.ts verbatim", async () => {
    const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
    const source = await readFile(new URL("./recipes/shared-config.ts", import.meta.url), "utf8");
    const section = readme.slice(readme.indexOf("### Many readers, one writer: `warden.rwLock`"));
    expect(section.length).toBeLessThan(readme.length);
    expect(section).toContain("```ts\n" + source + "```");
  });

  test("readPrices / rewritePrices: readers overlap, a rewrite never overlaps anything", async () => {
    const errors: unknown[] = [];
    const onError = (error: unknown) => errors.push(error);
    const [a, b] = [stack.client({ onError }), stack.client({ onError })];
    let reading = 0;
    let writing = 0;
    let mostReading = 0;
    let stored = 0n;
    const overlaps: string[] = [];
    const read = (warden: Warden) =>
      readPrices(warden, async (signal) => {
        reading += 1;
        mostReading = Math.max(mostReading, reading);
        if (writing > 0) overlaps.push("read during a rewrite");
        await delay(30);
        reading -= 1;
        expect(signal.aborted).toBe(false);
        return stored;
      });
    const write = (warden: Warden) =>
      rewritePrices(warden, async (signal, fence) => {
        writing += 1;
        if (writing > 1 || reading > 0) overlaps.push("rewrite with others");
        // What a fenced store does: accept only a fence above the highest accepted.
        if (BigInt(fence!) <= stored) overlaps.push("stale write fence");
        stored = BigInt(fence!);
        await delay(20);
        writing -= 1;
        expect(signal.aborted).toBe(false);
      });
    await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => read(i % 2 ? a : b)),
      write(a),
      ...Array.from({ length: 4 }, (_, i) => read(i % 2 ? a : b)),
      write(b),
    ]);
    expect(overlaps).toEqual([]);
    expect(mostReading).toBeGreaterThan(1);
    expect(stored).toBeGreaterThan(0n);
    expect(errors).toEqual([]);
  });
});
