import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  InvalidArgumentError,
  NotHolderError,
  compareFences,
  splitFence,
  type Holder,
  type LockStore,
  type RwAcquireResult,
  type RwGrant,
  type RwLockStore,
  type Tier,
} from "../../src/index.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";
import { expectListRefusals } from "../support/list-refusals.js";

/** What a tier's read-write test file hands the suite. */
export interface RwConformanceTarget {
  readonly store: RwLockStore;
  readonly tier: Tier;
  /** False for the local tier, whose grants carry no fence. */
  readonly fenced: boolean;
  /** The same tier's mutex store, to check that a key held as a mutex is refused. */
  readonly mutex: LockStore;
  close(): Promise<void>;
}

export function mustGrant(result: RwAcquireResult): RwGrant {
  if (!result.granted) {
    throw new Error(
      `expected a grant, refused (${result.reason}) by ${JSON.stringify(result.holders)}`,
    );
  }
  return result;
}

const gt = (a: string | null, b: string | null) => compareFences(a!, b!) > 0;

/**
 * The read-write lock suite every tier runs (decision 0165): the same assertions for Redis
 * standalone, sentinel, cluster, MySQL and local.
 */
export function describeRwLockStoreConformance(
  name: string,
  open: () => Promise<RwConformanceTarget>,
): void {
  describe(`RwLockStore conformance: ${name}`, () => {
    let target: RwConformanceTarget;
    let store: RwLockStore;

    beforeAll(async () => {
      target = await open();
      store = target.store;
    });
    afterAll(async () => {
      await target?.close();
    });

    const keyOf = () => ({ resource: uniqueResource("rw"), businessKey: "k" });

    test("many readers hold the key together and share one fence", async () => {
      const key = keyOf();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store.acquireRead({ ...key, holder: holder(`r${i}`), leaseMs: 10_000 }),
        ),
      );
      const grants = results.map(mustGrant);
      expect(grants.every((g) => g.mode === "read" && g.tier === target.tier)).toBe(true);
      expect(new Set(grants.map((g) => g.lockId)).size).toBe(20);
      if (target.fenced) {
        expect(grants[0]!.fence).toMatch(/^[1-9][0-9]*$/);
        // Readers share the generation's fence within one epoch; an epoch change in between
        // (a Redis failover, seen on a loaded test cluster) starts a new generation.
        const byEpoch = new Map<number, Set<string>>();
        for (const g of grants) {
          const { epoch } = splitFence(g.fence!);
          byEpoch.set(epoch, (byEpoch.get(epoch) ?? new Set()).add(g.fence!));
        }
        for (const [epoch, fences] of byEpoch) {
          expect(fences.size, `epoch ${epoch}: ${[...fences].join()}`).toBe(1);
        }
      } else {
        expect(grants.every((g) => g.fence === null)).toBe(true);
      }
      const seen = await store.inspect(key);
      expect(seen?.writer).toBeNull();
      expect(seen?.readers).toHaveLength(20);
      const highest = target.fenced
        ? grants.map((g) => g.fence).sort((a, b) => (gt(a, b) ? -1 : 1))[0]
        : null;
      expect(seen?.readFence).toBe(highest);
    });

    test("a writer is refused while readers live, and gets the key once they are gone", async () => {
      const key = keyOf();
      const r1 = mustGrant(
        await store.acquireRead({ ...key, holder: holder("r1"), leaseMs: 10_000 }),
      );
      const r2 = mustGrant(
        await store.acquireRead({ ...key, holder: holder("r2"), leaseMs: 5_000 }),
      );
      const w = holder("w");
      const refused = await store.acquireWrite({
        ...key,
        holder: w,
        leaseMs: 5_000,
        writerPreference: false,
      });
      expect(refused.granted).toBe(false);
      if (refused.granted) return;
      expect(refused.reason).toBe("read-held");
      expect(refused.mode).toBe("write");
      expect(refused.holders).toHaveLength(2);
      expect(refused.retryAfterMs).toBeGreaterThan(5_000);
      await store.release({ ...key, lockId: r1.lockId });
      expect((await store.acquireWrite({ ...key, holder: w, leaseMs: 5_000 })).granted).toBe(false);
      await store.release({ ...key, lockId: r2.lockId });
      const grant = mustGrant(await store.acquireWrite({ ...key, holder: w, leaseMs: 5_000 }));
      expect(grant.mode).toBe("write");
      if (target.fenced) expect(gt(grant.fence, r1.fence)).toBe(true);
      const seen = await store.inspect(key);
      expect(seen?.writer?.lockId).toBe(grant.lockId);
      expect(seen?.readers).toEqual([]);
      expect(seen?.waitingWriters).toBe(0);
    });

    test("readers and other writers are refused while a writer holds the key", async () => {
      const key = keyOf();
      const w = holder("w");
      const grant = mustGrant(await store.acquireWrite({ ...key, holder: w, leaseMs: 8_000 }));
      for (const result of [
        await store.acquireRead({ ...key, holder: holder("r"), leaseMs: 1_000 }),
        await store.acquireRead({
          ...key,
          holder: holder("r2"),
          leaseMs: 1_000,
          writerPreference: false,
        }),
        await store.acquireWrite({
          ...key,
          holder: holder("w2"),
          leaseMs: 1_000,
          writerPreference: false,
        }),
      ]) {
        expect(result.granted).toBe(false);
        if (result.granted) continue;
        expect(result.reason).toBe("write-held");
        expect(result.holders).toEqual([w]);
        expect(result.retryAfterMs).toBeGreaterThan(5_000);
      }
      await store.release({ ...key, lockId: grant.lockId });
      const reader = mustGrant(
        await store.acquireRead({ ...key, holder: holder("r"), leaseMs: 1_000 }),
      );
      if (target.fenced) expect(gt(reader.fence, grant.fence)).toBe(true);
    });

    test("writer preference: a waiting writer blocks new readers until it got the key", async () => {
      const key = keyOf();
      const first = holder("r1");
      const r1 = mustGrant(await store.acquireRead({ ...key, holder: first, leaseMs: 10_000 }));
      const w = holder("w");
      const waiting = await store.acquireWrite({ ...key, holder: w, leaseMs: 5_000 });
      expect(waiting.granted).toBe(false);
      expect((await store.inspect(key))?.waitingWriters).toBe(1);
      const blocked = await store.acquireRead({ ...key, holder: holder("r2"), leaseMs: 5_000 });
      expect(blocked.granted).toBe(false);
      if (!blocked.granted) {
        expect(blocked.reason).toBe("writer-waiting");
        expect(blocked.retryAfterMs).toBeGreaterThan(0);
      }
      // A reader re-entering is not held back (it would deadlock the writer), nor is a
      // reader that asks without writer preference.
      const again = mustGrant(await store.acquireRead({ ...key, holder: first, leaseMs: 1_000 }));
      expect(again.reentered).toBe(true);
      expect(again.reentry).toBe(2);
      expect(again.lockId).toBe(r1.lockId);
      const impatient = mustGrant(
        await store.acquireRead({
          ...key,
          holder: holder("r3"),
          leaseMs: 5_000,
          writerPreference: false,
        }),
      );
      expect((await store.inspect(key))?.readers).toHaveLength(2);
      await store.release({ ...key, lockId: r1.lockId });
      await store.release({ ...key, lockId: r1.lockId });
      await store.release({ ...key, lockId: impatient.lockId });
      const wrote = mustGrant(await store.acquireWrite({ ...key, holder: w, leaseMs: 5_000 }));
      expect((await store.inspect(key))?.waitingWriters).toBe(0);
      await store.release({ ...key, lockId: wrote.lockId });
      mustGrant(await store.acquireRead({ ...key, holder: holder("r4"), leaseMs: 5_000 }));
    });

    test("without writer preference readers keep entering while a writer waits", async () => {
      const key = keyOf();
      mustGrant(await store.acquireRead({ ...key, holder: holder("r1"), leaseMs: 10_000 }));
      for (let i = 0; i < 3; i += 1) {
        const w = await store.acquireWrite({
          ...key,
          holder: holder("w"),
          leaseMs: 5_000,
          writerPreference: false,
        });
        expect(w.granted).toBe(false);
        mustGrant(
          await store.acquireRead({ ...key, holder: holder(`r${i + 2}`), leaseMs: 10_000 }),
        );
      }
      const seen = await store.inspect(key);
      expect(seen?.waitingWriters).toBe(0);
      expect(seen?.readers).toHaveLength(4);
    });

    test("a writer's intent lapses when the writer stops trying", async () => {
      const key = keyOf();
      mustGrant(await store.acquireRead({ ...key, holder: holder("r1"), leaseMs: 10_000 }));
      expect(
        (await store.acquireWrite({ ...key, holder: holder("w"), leaseMs: 5_000, intentMs: 1_000 }))
          .granted,
      ).toBe(false);
      expect(
        (await store.acquireRead({ ...key, holder: holder("r2"), leaseMs: 5_000 })).granted,
      ).toBe(false);
      await sleep(1_200);
      mustGrant(await store.acquireRead({ ...key, holder: holder("r2"), leaseMs: 5_000 }));
      expect((await store.inspect(key))?.waitingWriters).toBe(0);
    });

    test("withdrawIntent removes only that writer's intent: a reader gets in at once once none is left", async () => {
      const key = keyOf();
      const r1 = mustGrant(
        await store.acquireRead({ ...key, holder: holder("r1"), leaseMs: 20_000 }),
      );
      const w1 = holder("w1");
      const w2 = holder("w2");
      // Intents long enough that none lapses during the test: only withdrawing removes them.
      for (const w of [w1, w2]) {
        const refused = await store.acquireWrite({
          ...key,
          holder: w,
          leaseMs: 5_000,
          intentMs: 20_000,
        });
        expect(refused.granted).toBe(false);
      }
      const before = await store.inspect(key);
      expect(before?.waitingWriters).toBe(2);
      const r2 = holder("r2");
      const blocked = await store.acquireRead({ ...key, holder: r2, leaseMs: 5_000 });
      expect(blocked.granted ? null : blocked.reason).toBe("writer-waiting");

      expect(await store.withdrawIntent({ ...key, holder: w1 })).toBe(true);
      expect((await store.inspect(key))?.waitingWriters).toBe(1);
      // w2's intent still holds readers back.
      const still = await store.acquireRead({ ...key, holder: r2, leaseMs: 5_000 });
      expect(still.granted ? null : still.reason).toBe("writer-waiting");
      // Withdrawing again, on another key, or for a holder with no intent changes nothing.
      expect(await store.withdrawIntent({ ...key, holder: w1 })).toBe(false);
      expect(await store.withdrawIntent({ ...key, businessKey: "other", holder: w2 })).toBe(false);
      expect(await store.withdrawIntent({ ...key, holder: { ...w2, ownerId: "w3" } })).toBe(false);
      // The reader holds a grant, not an intent: nothing of it goes.
      expect(await store.withdrawIntent({ ...key, holder: r1.holder })).toBe(false);
      expect((await store.inspect(key))?.waitingWriters).toBe(1);

      expect(await store.withdrawIntent({ ...key, holder: w2 })).toBe(true);
      const reader = mustGrant(await store.acquireRead({ ...key, holder: r2, leaseMs: 5_000 }));
      const after = await store.inspect(key);
      expect(after?.waitingWriters).toBe(0);
      expect(after?.writer).toBeNull();
      expect(after?.readers.map((g) => [g.lockId, g.reentry, g.renewals])).toEqual([
        [r1.lockId, 1, 0],
        [reader.lockId, 1, 0],
      ]);
      expect(after!.readers[0]!.ttlMs).toBeGreaterThan(10_000);
      if (target.fenced) {
        expect(reader.fence).toBe(r1.fence);
        expect(after?.readFence).toBe(before?.readFence);
      }
      expect(await store.withdrawIntent({ ...key, holder: w2 })).toBe(false);
    });

    test("withdrawIntent never touches a grant, and is harmless on a key with nothing", async () => {
      const key = keyOf();
      const w = holder("w");
      const grant = mustGrant(await store.acquireWrite({ ...key, holder: w, leaseMs: 20_000 }));
      // Another writer waits on the held key; the holder's withdrawal leaves its intent too.
      const other = holder("w2");
      expect(
        (await store.acquireWrite({ ...key, holder: other, leaseMs: 5_000, intentMs: 20_000 }))
          .granted,
      ).toBe(false);
      expect(await store.withdrawIntent({ ...key, holder: w })).toBe(false);
      const seen = await store.inspect(key);
      expect(seen?.writer?.lockId).toBe(grant.lockId);
      expect(seen?.writer?.reentry).toBe(1);
      expect(seen!.writer!.ttlMs).toBeGreaterThan(10_000);
      expect(seen?.waitingWriters).toBe(1);
      // A writer granted after its intent has none left to withdraw.
      await store.release({ ...key, lockId: grant.lockId });
      const next = mustGrant(await store.acquireWrite({ ...key, holder: other, leaseMs: 5_000 }));
      expect(await store.withdrawIntent({ ...key, holder: other })).toBe(false);
      expect((await store.inspect(key))?.writer?.lockId).toBe(next.lockId);

      const empty = keyOf();
      expect(await store.withdrawIntent({ ...empty, holder: w })).toBe(false);
      expect(await store.withdrawIntent({ ...empty, holder: w })).toBe(false);
      expect(await store.inspect(empty)).toBeNull();
      mustGrant(await store.acquireRead({ ...empty, holder: holder("r"), leaseMs: 1_000 }));
    });

    test("withdrawIntent refuses bad input with a typed error and changes nothing", async () => {
      const key = keyOf();
      mustGrant(await store.acquireRead({ ...key, holder: holder("r"), leaseMs: 20_000 }));
      const w = holder("w");
      expect(
        (await store.acquireWrite({ ...key, holder: w, leaseMs: 5_000, intentMs: 20_000 })).granted,
      ).toBe(false);
      const cases: [string, unknown][] = [
        ["resource", { ...key, resource: "bad name", holder: w }],
        ["businessKey", { ...key, businessKey: "", holder: w }],
        ["holder", { ...key, holder: null }],
        ["holder", { ...key }],
        ["holder.ownerId", { ...key, holder: { clientId: w.clientId, ownerId: "" } }],
        ["holder.clientId", { ...key, holder: { clientId: 7, ownerId: w.ownerId } }],
        ["input", null],
      ];
      for (const [field, input] of cases) {
        const error = await store
          .withdrawIntent(input as Parameters<RwLockStore["withdrawIntent"]>[0])
          .catch((e: unknown) => e);
        expect(error, field).toBeInstanceOf(InvalidArgumentError);
        expect((error as InvalidArgumentError).field, field).toBe(field);
      }
      expect((await store.inspect(key))?.waitingWriters).toBe(1);
      const blocked = await store.acquireRead({ ...key, holder: holder("r2"), leaseMs: 5_000 });
      expect(blocked.granted ? null : blocked.reason).toBe("writer-waiting");
    });

    test("fences: every write exceeds all earlier fences; readers between writes share one", async () => {
      if (!target.fenced) return;
      const key = keyOf();
      const a = mustGrant(await store.acquireRead({ ...key, holder: holder("a"), leaseMs: 5_000 }));
      const b = mustGrant(await store.acquireRead({ ...key, holder: holder("b"), leaseMs: 5_000 }));
      expect(b.fence).toBe(a.fence);
      await store.release({ ...key, lockId: a.lockId });
      // Still no write since a: a reader joining b shares the generation's fence.
      const c = mustGrant(await store.acquireRead({ ...key, holder: holder("c"), leaseMs: 5_000 }));
      expect(c.fence).toBe(a.fence);
      await store.release({ ...key, lockId: b.lockId });
      await store.release({ ...key, lockId: c.lockId });
      const w1 = mustGrant(
        await store.acquireWrite({ ...key, holder: holder("w1"), leaseMs: 5_000 }),
      );
      expect(gt(w1.fence, a.fence)).toBe(true);
      await store.release({ ...key, lockId: w1.lockId });
      const w2 = mustGrant(
        await store.acquireWrite({ ...key, holder: holder("w2"), leaseMs: 5_000 }),
      );
      expect(gt(w2.fence, w1.fence)).toBe(true);
      await store.release({ ...key, lockId: w2.lockId });
      const d = mustGrant(await store.acquireRead({ ...key, holder: holder("d"), leaseMs: 5_000 }));
      const e = mustGrant(await store.acquireRead({ ...key, holder: holder("e"), leaseMs: 5_000 }));
      expect(gt(d.fence, w2.fence)).toBe(true);
      expect(e.fence).toBe(d.fence);
      expect((await store.inspect(key))?.readFence).toBe(d.fence);
      await store.release({ ...key, lockId: d.lockId });
      await store.release({ ...key, lockId: e.lockId });
      const w3 = mustGrant(
        await store.acquireWrite({ ...key, holder: holder("w3"), leaseMs: 5_000 }),
      );
      expect(gt(w3.fence, d.fence)).toBe(true);
      expect((await store.inspect(key))?.readFence).toBeNull();
    });

    test("expired grants are reclaimed by the next acquire, and a late release says NotHolder", async () => {
      // Leases long enough that a loaded box answers well within them.
      const key = keyOf();
      const w = mustGrant(
        await store.acquireWrite({ ...key, holder: holder("w"), leaseMs: 1_000 }),
      );
      expect(
        (await store.acquireRead({ ...key, holder: holder("r"), leaseMs: 1_000 })).granted,
      ).toBe(false);
      await sleep(1_200);
      const r = mustGrant(await store.acquireRead({ ...key, holder: holder("r"), leaseMs: 2_000 }));
      const readAt = Date.now();
      if (target.fenced) expect(gt(r.fence, w.fence)).toBe(true);
      await expect(store.release({ ...key, lockId: w.lockId })).rejects.toBeInstanceOf(
        NotHolderError,
      );
      await expect(
        store.extend({ ...key, lockId: w.lockId, leaseMs: 1_000 }),
      ).rejects.toBeInstanceOf(NotHolderError);
      expect(
        (await store.acquireWrite({ ...key, holder: holder("w2"), leaseMs: 1_000 })).granted,
      ).toBe(false);
      await sleep(Math.max(0, readAt + 2_200 - Date.now()));
      const w2 = mustGrant(
        await store.acquireWrite({ ...key, holder: holder("w2"), leaseMs: 1_000 }),
      );
      if (target.fenced) expect(gt(w2.fence, r.fence)).toBe(true);
    });

    test("extend keeps a grant past its lease and counts the renewal", async () => {
      const key = keyOf();
      const r = mustGrant(await store.acquireRead({ ...key, holder: holder("r"), leaseMs: 1_000 }));
      for (let i = 0; i < 3; i += 1) {
        await sleep(400);
        const view = await store.extend({ ...key, lockId: r.lockId, leaseMs: 1_000 });
        expect(view.lockId).toBe(r.lockId);
        expect(view.mode).toBe("read");
        expect(view.renewals).toBe(i + 1);
        expect(view.ttlMs).toBeGreaterThan(700);
      }
      expect(
        (await store.acquireWrite({ ...key, holder: holder("w"), leaseMs: 1_000 })).granted,
      ).toBe(false);
    });

    test("release and extend of an unknown lockId say NotHolder and change nothing", async () => {
      const key = keyOf();
      const r = mustGrant(
        await store.acquireRead({ ...key, holder: holder("r"), leaseMs: 10_000 }),
      );
      const before = await store.inspect(key);
      const wrong = "AAAAAAAAAAAAAAAAAAAAAA";
      await expect(store.release({ ...key, lockId: wrong })).rejects.toBeInstanceOf(NotHolderError);
      await expect(store.extend({ ...key, lockId: wrong, leaseMs: 1_000 })).rejects.toBeInstanceOf(
        NotHolderError,
      );
      // Another key's lockId is unknown here too.
      await expect(
        store.release({ ...key, businessKey: "other", lockId: r.lockId }),
      ).rejects.toBeInstanceOf(NotHolderError);
      const after = await store.inspect(key);
      expect(after?.readers.map((g) => [g.lockId, g.reentry, g.renewals])).toEqual(
        before?.readers.map((g) => [g.lockId, g.reentry, g.renewals]),
      );
      expect(after!.readers[0]!.ttlMs).toBeGreaterThan(5_000);
    });

    test("bad input is a typed error and changes nothing", async () => {
      const key = keyOf();
      const h = holder("h");
      const cases: [string, () => Promise<unknown>][] = [
        ["leaseMs", () => store.acquireRead({ ...key, holder: h, leaseMs: 0 })],
        ["leaseMs", () => store.acquireWrite({ ...key, holder: h, leaseMs: 60_001 })],
        [
          "writerPreference",
          () =>
            store.acquireRead({
              ...key,
              holder: h,
              leaseMs: 1_000,
              writerPreference: "yes" as unknown as boolean,
            }),
        ],
        ["intentMs", () => store.acquireWrite({ ...key, holder: h, leaseMs: 1_000, intentMs: 0 })],
        [
          "resource",
          () => store.acquireWrite({ ...key, resource: "bad name", holder: h, leaseMs: 1_000 }),
        ],
        [
          "holder.ownerId",
          () =>
            store.acquireRead({ ...key, holder: { clientId: "c", ownerId: "" }, leaseMs: 1_000 }),
        ],
        ["lockId", () => store.release({ ...key, lockId: "short" })],
        ["leaseMs", () => store.extend({ ...key, lockId: "AAAAAAAAAAAAAAAAAAAAAA", leaseMs: -5 })],
      ];
      for (const [field, call] of cases) {
        const error = await call().catch((e: unknown) => e);
        expect(error, field).toBeInstanceOf(InvalidArgumentError);
        expect((error as InvalidArgumentError).field).toBe(field);
      }
      expect(await store.inspect(key)).toBeNull();
    });

    test("mixing modes for one holder, or a key held as a mutex, is refused with no state change", async () => {
      const key = keyOf();
      const h = holder("h");
      const w = mustGrant(await store.acquireWrite({ ...key, holder: h, leaseMs: 10_000 }));
      const before = await store.inspect(key);
      const mixed = await store
        .acquireRead({ ...key, holder: h, leaseMs: 1_000 })
        .catch((e: unknown) => e);
      expect(mixed).toBeInstanceOf(InvalidArgumentError);
      expect((mixed as InvalidArgumentError).field).toBe("mode");
      const after = await store.inspect(key);
      expect(after?.writer?.lockId).toBe(w.lockId);
      expect(after?.writer?.reentry).toBe(1);
      expect(after?.readers).toEqual([]);
      expect(after?.readFence).toBe(before?.readFence);

      const reader = holder("r");
      const key2 = keyOf();
      mustGrant(await store.acquireRead({ ...key2, holder: reader, leaseMs: 10_000 }));
      const up = await store
        .acquireWrite({ ...key2, holder: reader, leaseMs: 1_000 })
        .catch((e: unknown) => e);
      expect((up as InvalidArgumentError).field).toBe("mode");
      expect((await store.inspect(key2))?.waitingWriters).toBe(0);

      const key3 = keyOf();
      const mutex = await target.mutex.acquire({ ...key3, holder: h, leaseMs: 10_000 });
      expect(mutex.granted).toBe(true);
      for (const call of [
        () => store.acquireRead({ ...key3, holder: holder("x"), leaseMs: 1_000 }),
        () => store.acquireWrite({ ...key3, holder: holder("y"), leaseMs: 1_000 }),
      ]) {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InvalidArgumentError);
        expect((error as InvalidArgumentError).field).toBe("businessKey");
      }
      expect(await store.inspect(key3)).toBeNull();
      expect((await target.mutex.inspect(key3))?.holder).toEqual(h);
    });

    test("forceRelease removes one grant or all of them", async () => {
      const key = keyOf();
      const a = mustGrant(
        await store.acquireRead({ ...key, holder: holder("a"), leaseMs: 10_000 }),
      );
      const b = mustGrant(
        await store.acquireRead({ ...key, holder: holder("b"), leaseMs: 10_000 }),
      );
      const one = await store.forceRelease({ ...key, lockId: a.lockId });
      expect(one.map((g) => g.lockId)).toEqual([a.lockId]);
      expect((await store.inspect(key))?.readers.map((g) => g.lockId)).toEqual([b.lockId]);
      expect(await store.forceRelease({ ...key, lockId: a.lockId })).toEqual([]);
      const rest = await store.forceRelease(key);
      expect(rest.map((g) => g.lockId)).toEqual([b.lockId]);
      expect(await store.inspect(key)).toBeNull();
      await expect(store.release({ ...key, lockId: b.lockId })).rejects.toBeInstanceOf(
        NotHolderError,
      );
    });

    test("list pages through the keys with live grants, as inspect sees them", async () => {
      const resource = uniqueResource("rw-list");
      const businessKeys = Array.from({ length: 7 }, (_, i) => `key-${i}`);
      const grants = new Map<string, RwGrant>();
      for (const [i, businessKey] of businessKeys.entries()) {
        const ask = { resource, businessKey, holder: holder(`h${i}`), leaseMs: 10_000 };
        grants.set(
          businessKey,
          mustGrant(await (i % 2 === 0 ? store.acquireWrite(ask) : store.acquireRead(ask))),
        );
      }
      // A second reader on one key, a released key, and another resource's key: none extra.
      mustGrant(
        await store.acquireRead({
          resource,
          businessKey: "key-1",
          holder: holder("h1b"),
          leaseMs: 10_000,
        }),
      );
      const gone = mustGrant(
        await store.acquireWrite({
          resource,
          businessKey: "gone",
          holder: holder("g"),
          leaseMs: 10_000,
        }),
      );
      await store.release({ resource, businessKey: "gone", lockId: gone.lockId });
      mustGrant(
        await store.acquireWrite({
          resource: uniqueResource("rw-list-other"),
          businessKey: "key-0",
          holder: holder("o"),
          leaseMs: 10_000,
        }),
      );
      // A key left with only a writer's intent (refused while read, then the reader left).
      const reader = mustGrant(
        await store.acquireRead({
          resource,
          businessKey: "intent",
          holder: holder("r"),
          leaseMs: 10_000,
        }),
      );
      const refused = await store.acquireWrite({
        resource,
        businessKey: "intent",
        holder: holder("w"),
        leaseMs: 10_000,
        intentMs: 30_000,
      });
      expect(refused.granted).toBe(false);
      await store.release({ resource, businessKey: "intent", lockId: reader.lockId });
      expect((await store.inspect({ resource, businessKey: "intent" }))?.waitingWriters).toBe(1);
      const listed = new Map<string, { writer: string | null; readers: number }>();
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.list({ resource, limit: 3, ...(cursor ? { cursor } : {}) });
        for (const view of page.keys) {
          expect(view.resource).toBe(resource);
          expect(view.tier).toBe(target.tier);
          expect(listed.has(view.businessKey), `${view.businessKey} twice`).toBe(false);
          listed.set(view.businessKey, {
            writer: view.writer?.lockId ?? null,
            readers: view.readers.length,
          });
        }
        cursor = page.cursor ?? undefined;
        pages += 1;
        expect(pages).toBeLessThan(100);
      } while (cursor !== undefined);
      expect([...listed.keys()].sort()).toEqual(businessKeys);
      for (const [i, businessKey] of businessKeys.entries()) {
        const seen = listed.get(businessKey)!;
        if (i % 2 === 0)
          expect(seen).toEqual({ writer: grants.get(businessKey)!.lockId, readers: 0 });
        else expect(seen).toEqual({ writer: null, readers: businessKey === "key-1" ? 2 : 1 });
      }
      // A key whose grants are force-released leaves the list.
      await store.forceRelease({ resource, businessKey: "key-0" });
      const all: string[] = [];
      cursor = undefined;
      do {
        const page = await store.list({ resource, ...(cursor ? { cursor } : {}) });
        all.push(...page.keys.map((view) => view.businessKey));
        cursor = page.cursor ?? undefined;
      } while (cursor !== undefined);
      expect(all.sort()).toEqual(businessKeys.slice(1));
    });

    test("list refuses a bad resource, limit or cursor with a typed error", async () => {
      await expectListRefusals((input) => store.list(input), uniqueResource("rw-list-bad"));
    });

    test("a bounded concurrent hammer never sees a writer together with anyone else", async () => {
      const key = keyOf();
      let readers = 0;
      let writers = 0;
      let violations = 0;
      let writes = 0;
      let reads = 0;
      // The highest fence granted so far, and the write fences in grant order.
      let highest: string | null = null;
      let fenceViolations = 0;
      const worker = async (w: number) => {
        const me: Holder = holder(`h${w}`);
        for (let i = 0; i < 20; i += 1) {
          const write = (w + i) % 3 === 0;
          const before = highest;
          const result = write
            ? await store.acquireWrite({
                ...key,
                holder: me,
                leaseMs: 10_000,
                writerPreference: w % 2 === 0,
              })
            : await store.acquireRead({
                ...key,
                holder: me,
                leaseMs: 10_000,
                writerPreference: w % 2 === 0,
              });
          if (!result.granted) {
            await sleep(1 + (i % 3));
            continue;
          }
          if (target.fenced && before !== null) {
            // A write exceeds every fence granted before it was asked for; a read is at least
            // the highest (equal when it joins the current read generation).
            const order = compareFences(result.fence!, before);
            if (write ? order <= 0 : order < 0) fenceViolations += 1;
          }
          if (target.fenced && (highest === null || gt(result.fence, highest)))
            highest = result.fence;
          if (write) {
            writers += 1;
            writes += 1;
          } else {
            readers += 1;
            reads += 1;
          }
          if (writers > 1 || (writers === 1 && readers > 0)) violations += 1;
          await sleep(1);
          if (writers > 1 || (writers === 1 && readers > 0)) violations += 1;
          if (write) writers -= 1;
          else readers -= 1;
          await store.release({ ...key, lockId: result.lockId });
        }
      };
      await Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));
      expect(violations).toBe(0);
      expect(fenceViolations).toBe(0);
      expect(writes).toBeGreaterThan(0);
      expect(reads).toBeGreaterThan(0);
      const left = await store.inspect(key);
      expect(left?.writer ?? null).toBeNull();
      expect(left?.readers ?? []).toEqual([]);
    });
  });
}
