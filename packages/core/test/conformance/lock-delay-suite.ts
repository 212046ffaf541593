import { describe, expect, test } from "vitest";
import {
  InvalidArgumentError,
  LOCK_DELAY_HOLDER,
  MAX_LOCK_DELAY_MS,
  type AcquireInput,
  type AcquireResult,
  type Grant,
  type LockKey,
  type LockStore,
  type Refusal,
} from "../../src/index.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";

/** Bounded polling: at most this many tries, 100 ms apart. */
const MAX_TRIES = 100;

/**
 * Lock-delay (docs/decisions/0175), part of the conformance suite every tier runs: after an
 * involuntary end (expiry, force-release) an acquire that passes `lockDelayMs` is refused
 * for the delay, then granted; a voluntary release starts none.
 */
export function describeLockDelay(storeOf: () => LockStore): void {
  describe("lock-delay", () => {
    function grant(result: AcquireResult): Grant {
      if (!result.granted) throw new Error(`expected a grant, got ${JSON.stringify(result)}`);
      return result;
    }

    function delayed(result: AcquireResult): Refusal {
      if (result.granted) throw new Error(`expected a lock-delay refusal, got a grant`);
      expect(result.holder).toEqual(LOCK_DELAY_HOLDER);
      return result;
    }

    /** Tries until granted (bounded); returns the grant and how many refusals came first. */
    async function grantedLater(store: LockStore, input: AcquireInput): Promise<Grant> {
      for (let i = 0; i < MAX_TRIES; i += 1) {
        const result = await store.acquire(input);
        if (result.granted) return result;
        expect(result.holder).toEqual(LOCK_DELAY_HOLDER);
        await sleep(100);
      }
      throw new Error("never granted after the lock-delay");
    }

    function fresh(): LockKey {
      return { resource: uniqueResource("ld"), businessKey: "k" };
    }

    test("after an expiry the key is refused for the delay (reported by inspectDelay), then granted", async () => {
      const store = storeOf();
      const key = fresh();
      const lockDelayMs = 1_500;
      grant(await store.acquire({ ...key, holder: holder("a"), leaseMs: 200, lockDelayMs }));
      await sleep(400);
      expect(await store.inspect(key)).toBeNull();
      const refused = delayed(
        await store.acquire({ ...key, holder: holder("b"), leaseMs: 5_000, lockDelayMs }),
      );
      expect(refused.ttlMs).toBeGreaterThan(0);
      expect(refused.ttlMs).toBeLessThanOrEqual(lockDelayMs);
      expect(refused.tier).toBe(store.tier);
      const view = await store.inspectDelay?.(key);
      expect(view?.remainingMs).toBeGreaterThan(0);
      expect(view?.remainingMs).toBeLessThanOrEqual(lockDelayMs);
      expect(view?.lockDelayUntil).toBeGreaterThan(Date.now() - 60_000);
      expect(view).toMatchObject({ ...key, tier: store.tier });
      const later = await grantedLater(store, {
        ...key,
        holder: holder("b"),
        leaseMs: 5_000,
        lockDelayMs,
      });
      expect(later.reentry).toBe(1);
      expect(await store.inspectDelay?.(key)).toBeNull();
    });

    test("after a force-release the key is refused for the delay, then granted", async () => {
      const store = storeOf();
      const key = fresh();
      const lockDelayMs = 1_500;
      const first = grant(
        await store.acquire({ ...key, holder: holder("a"), leaseMs: 30_000, lockDelayMs }),
      );
      expect(await store.inspectDelay?.(key)).toBeNull();
      expect((await store.forceRelease(key))?.lockId).toBe(first.lockId);
      const refused = delayed(
        await store.acquire({ ...key, holder: holder("b"), leaseMs: 5_000, lockDelayMs }),
      );
      expect(refused.ttlMs).toBeGreaterThan(0);
      expect(refused.ttlMs).toBeLessThanOrEqual(lockDelayMs);
      // The holder whose lease was taken away is held back too.
      delayed(await store.acquire({ ...key, holder: first.holder, leaseMs: 5_000, lockDelayMs }));
      await grantedLater(store, { ...key, holder: holder("b"), leaseMs: 5_000, lockDelayMs });
    });

    test("every read of one lock-delay reports the same end instant, in whole ms", async () => {
      // The console and lock.inspect read one delay at different moments and must agree on
      // when it ends: a figure recomputed as now + remaining drifts by a millisecond.
      const store = storeOf();
      const key = fresh();
      const lockDelayMs = 20_000;
      grant(await store.acquire({ ...key, holder: holder("a"), leaseMs: 30_000, lockDelayMs }));
      const before = Date.now();
      await store.forceRelease(key);
      const ends = new Set<number>();
      for (let i = 0; i < 200; i += 1) {
        const view = await store.inspectDelay?.(key);
        if (!view) throw new Error("expected a lock-delay in force");
        ends.add(view.lockDelayUntil);
      }
      expect(ends.size).toBe(1);
      const [until = 0] = [...ends];
      expect(Number.isInteger(until)).toBe(true);
      // Within a second of the force-release plus the delay (clocks of one machine).
      expect(until).toBeGreaterThanOrEqual(before + lockDelayMs - 1_000);
      expect(until).toBeLessThanOrEqual(Date.now() + lockDelayMs + 1_000);
    });

    test("a voluntary release starts no delay, also after re-entries", async () => {
      const store = storeOf();
      const key = fresh();
      const lockDelayMs = MAX_LOCK_DELAY_MS;
      const a = holder("a");
      const first = grant(await store.acquire({ ...key, holder: a, leaseMs: 10_000, lockDelayMs }));
      grant(await store.acquire({ ...key, holder: a, leaseMs: 10_000, lockDelayMs }));
      expect((await store.release({ ...key, lockId: first.lockId })).released).toBe(false);
      expect(
        (await store.acquire({ ...key, holder: holder("b"), leaseMs: 1_000, lockDelayMs })).granted,
      ).toBe(false);
      expect((await store.release({ ...key, lockId: first.lockId })).released).toBe(true);
      expect(await store.inspectDelay?.(key)).toBeNull();
      const next = grant(
        await store.acquire({ ...key, holder: holder("b"), leaseMs: 10_000, lockDelayMs }),
      );
      await store.release({ ...key, lockId: next.lockId });
      grant(await store.acquire({ ...key, holder: holder("c"), leaseMs: 10_000, lockDelayMs }));
    });

    test("extend moves the delay with the lease", async () => {
      const store = storeOf();
      const key = fresh();
      const lockDelayMs = 800;
      const first = grant(
        await store.acquire({ ...key, holder: holder("a"), leaseMs: 200, lockDelayMs }),
      );
      await store.extend({ ...key, lockId: first.lockId, leaseMs: 1_500 });
      // Past the first lease and its delay (1 000 ms), but within the extended lease's
      // delay (2 300 ms): still held back.
      await sleep(1_700);
      expect(await store.inspect(key)).toBeNull();
      delayed(await store.acquire({ ...key, holder: holder("b"), leaseMs: 5_000, lockDelayMs }));
      await grantedLater(store, { ...key, holder: holder("b"), leaseMs: 5_000, lockDelayMs });
    });

    test("without lockDelayMs nothing changes: an expired key is granted at once", async () => {
      const store = storeOf();
      const key = fresh();
      grant(await store.acquire({ ...key, holder: holder("a"), leaseMs: 200 }));
      await sleep(400);
      expect(await store.inspectDelay?.(key)).toBeNull();
      grant(await store.acquire({ ...key, holder: holder("b"), leaseMs: 200, lockDelayMs: 0 }));
      await sleep(400);
      grant(await store.acquire({ ...key, holder: holder("c"), leaseMs: 5_000 }));
    });

    test("a delayed key refuses the fair queue's head too, which keeps its place and gets the key after", async () => {
      const store = storeOf();
      const key = fresh();
      const lockDelayMs = 1_500;
      const fair = (waiterId: string | null) => ({ waiterId, heartbeatMs: 20_000 });
      const w1 = holder("w1");
      grant(await store.acquire({ ...key, holder: holder("a"), leaseMs: 200, lockDelayMs }));
      await store.acquire({ ...key, holder: w1, leaseMs: 5_000, lockDelayMs, fair: fair("w1") });
      await sleep(400);
      delayed(
        await store.acquire({ ...key, holder: w1, leaseMs: 5_000, lockDelayMs, fair: fair("w1") }),
      );
      const w2 = holder("w2");
      delayed(
        await store.acquire({ ...key, holder: w2, leaseMs: 5_000, lockDelayMs, fair: fair("w2") }),
      );
      expect((await store.readQueue(key)).map((place) => place.waiterId)).toEqual(["w1", "w2"]);
      const got = await grantedLater(store, {
        ...key,
        holder: w1,
        leaseMs: 5_000,
        lockDelayMs,
        fair: fair("w1"),
      });
      expect(got.holder).toEqual(w1);
      expect((await store.readQueue(key)).map((place) => place.waiterId)).toEqual(["w2"]);
      await store.leaveQueue({ ...key, waiterId: "w2" });
    });

    test("bad lockDelayMs gets InvalidArgumentError and writes nothing", async () => {
      const store = storeOf();
      const key = fresh();
      for (const lockDelayMs of [-1, 1.5, MAX_LOCK_DELAY_MS + 1, Number.NaN, "5", null]) {
        await expect(
          store.acquire({
            ...key,
            holder: holder("a"),
            leaseMs: 200,
            lockDelayMs: lockDelayMs as number,
          }),
          String(lockDelayMs),
        ).rejects.toBeInstanceOf(InvalidArgumentError);
      }
      expect(await store.inspect(key)).toBeNull();
      expect(await store.inspectDelay?.(key)).toBeNull();
      grant(await store.acquire({ ...key, holder: holder("b"), leaseMs: 5_000, lockDelayMs: 100 }));
    });
  });
}
