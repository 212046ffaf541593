import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  InvalidArgumentError,
  NotHolderError,
  compareFences,
  QUEUED_HOLDER,
  type Grant,
  type LockStore,
  type StoreEvent,
  type Tier,
} from "../../src/index.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";
import { describeLockDelay } from "./lock-delay-suite.js";

/** What a tier's test file hands the suite. */
export interface ConformanceTarget {
  readonly store: LockStore;
  readonly tier: Tier;
  /** False for the local tier, whose grants carry no fence. */
  readonly fenced: boolean;
  /** What the store emitted, when the target collects it. */
  readonly events?: readonly StoreEvent[];
  /** Stops whatever the target started. */
  close(): Promise<void>;
}

/**
 * The one conformance suite every tier runs (docs/design.md#how-it-is-tested): the same assertions
 * for Redis standalone, sentinel, cluster, MySQL and local.
 */
export function describeLockStoreConformance(
  name: string,
  open: () => Promise<ConformanceTarget>,
): void {
  describe(`LockStore conformance: ${name}`, () => {
    let target: ConformanceTarget;
    let store: LockStore;

    beforeAll(async () => {
      target = await open();
      store = target.store;
    });
    afterAll(async () => {
      await target?.close();
    });

    function mustGrant(result: Awaited<ReturnType<LockStore["acquire"]>>): Grant {
      if (!result.granted)
        throw new Error(`expected a grant, held by ${JSON.stringify(result.holder)}`);
      return result;
    }

    test("exactly one of 50 concurrent acquirers of one key wins", async () => {
      const resource = uniqueResource();
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          store.acquire({ resource, businessKey: "k", holder: holder(`o${i}`), leaseMs: 10_000 }),
        ),
      );
      const winners = results.filter((r) => r.granted);
      expect(winners).toHaveLength(1);
      const winner = winners[0] as Grant;
      expect(winner.tier).toBe(target.tier);
      for (const loser of results.filter((r) => !r.granted)) {
        if (loser.granted) continue;
        expect(loser.holder).toEqual(winner.holder);
        expect(loser.ttlMs).toBeGreaterThan(0);
      }
    });

    test("a grant reports lockId, fence, expiry on the store clock and reentry 1", async () => {
      const resource = uniqueResource();
      const before = Date.now();
      const grant = mustGrant(
        await store.acquire({ resource, businessKey: "k", holder: holder(), leaseMs: 5_000 }),
      );
      expect(grant.lockId).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(grant.reentry).toBe(1);
      expect(grant.reentered).toBe(false);
      if (target.fenced) expect(grant.fence).toMatch(/^[1-9][0-9]*$/);
      else expect(grant.fence).toBeNull();
      // Same machine: the store clock is close to ours, and the lease ends about 5 s out.
      expect(grant.expiresAt).toBeGreaterThan(before + 4_000);
      expect(grant.expiresAt).toBeLessThan(Date.now() + 6_000);
      const seen = await store.inspect({ resource, businessKey: "k" });
      expect(seen?.lockId).toBe(grant.lockId);
      expect(seen?.fence).toBe(grant.fence);
    });

    test("release by the wrong lockId changes nothing", async () => {
      const resource = uniqueResource();
      const key = { resource, businessKey: "k" };
      const grant = mustGrant(await store.acquire({ ...key, holder: holder(), leaseMs: 10_000 }));
      const wrong = "AAAAAAAAAAAAAAAAAAAAAA";
      await expect(store.release({ ...key, lockId: wrong })).rejects.toBeInstanceOf(NotHolderError);
      await expect(store.extend({ ...key, lockId: wrong, leaseMs: 1_000 })).rejects.toBeInstanceOf(
        NotHolderError,
      );
      const after = await store.inspect(key);
      expect(after?.lockId).toBe(grant.lockId);
      expect(after?.reentry).toBe(1);
      expect(after!.ttlMs).toBeGreaterThan(5_000);
    });

    test("expiry without extension frees the key, and a late release says expired", async () => {
      const resource = uniqueResource();
      const key = { resource, businessKey: "k" };
      const first = mustGrant(await store.acquire({ ...key, holder: holder("a"), leaseMs: 300 }));
      expect((await store.acquire({ ...key, holder: holder("b"), leaseMs: 300 })).granted).toBe(
        false,
      );
      await sleep(450);
      expect(await store.inspect(key)).toBeNull();
      const second = mustGrant(
        await store.acquire({ ...key, holder: holder("b"), leaseMs: 5_000 }),
      );
      const late = await store.release({ ...key, lockId: first.lockId }).catch((e: unknown) => e);
      expect(late).toBeInstanceOf(NotHolderError);
      expect((late as NotHolderError).reason).toBe("other-holder");
      await store.release({ ...key, lockId: second.lockId });
      const gone = await store.release({ ...key, lockId: second.lockId }).catch((e: unknown) => e);
      expect((gone as NotHolderError).reason).toBe("expired");
    });

    test("extend keeps the key past its original lease", async () => {
      const resource = uniqueResource();
      const key = { resource, businessKey: "k" };
      const grant = mustGrant(await store.acquire({ ...key, holder: holder("a"), leaseMs: 400 }));
      for (let i = 0; i < 3; i += 1) {
        await sleep(200);
        const view = await store.extend({ ...key, lockId: grant.lockId, leaseMs: 400 });
        expect(view.lockId).toBe(grant.lockId);
        expect(view.ttlMs).toBeGreaterThan(300);
      }
      expect((await store.acquire({ ...key, holder: holder("b"), leaseMs: 400 })).granted).toBe(
        false,
      );
      expect((await store.inspect(key))?.lockId).toBe(grant.lockId);
    });

    test("re-entry by the same holder counts, keeps lockId and fence, never shortens", async () => {
      const resource = uniqueResource();
      const key = { resource, businessKey: "k" };
      const me = holder("task-1");
      const first = mustGrant(await store.acquire({ ...key, holder: me, leaseMs: 8_000 }));
      const again = mustGrant(await store.acquire({ ...key, holder: me, leaseMs: 1_000 }));
      expect(again.reentered).toBe(true);
      expect(again.reentry).toBe(2);
      expect(again.lockId).toBe(first.lockId);
      expect(again.fence).toBe(first.fence);
      expect(again.ttlMs).toBeGreaterThan(5_000);
      // Same client, other task: not the same holder.
      expect(
        (await store.acquire({ ...key, holder: { ...me, ownerId: "task-2" }, leaseMs: 1_000 }))
          .granted,
      ).toBe(false);
      expect(await store.release({ ...key, lockId: first.lockId })).toMatchObject({
        released: false,
        reentry: 1,
      });
      expect((await store.inspect(key))?.reentry).toBe(1);
      expect(await store.release({ ...key, lockId: first.lockId })).toMatchObject({
        released: true,
        reentry: 0,
      });
      expect(await store.inspect(key)).toBeNull();
    });

    test("fences strictly increase over 1 000 grants of one key amid releases, expiries and 10 000 other keys", async () => {
      const resource = uniqueResource();
      const key = { resource, businessKey: "hot" };
      const fences: string[] = [];
      for (let i = 0; i < 1_000; i += 1) {
        const grant = mustGrant(
          await store.acquire({
            ...key,
            holder: holder(`o${i}`),
            leaseMs: i % 100 === 0 ? 300 : 5_000,
          }),
        );
        fences.push(grant.fence ?? "");
        if (i % 100 === 0) await sleep(350);
        else await store.release({ ...key, lockId: grant.lockId });
        if (i % 100 === 50) {
          // Other keys of the same resource share the hot key's fence counter shard.
          for (let batch = 0; batch < 10; batch += 1) {
            await Promise.all(
              Array.from({ length: 100 }, (_, j) =>
                store.acquire({
                  resource,
                  businessKey: `other-${i}-${batch}-${j}`,
                  holder: holder(),
                  leaseMs: 1_000,
                }),
              ),
            );
          }
        }
      }
      if (!target.fenced) return;
      for (let i = 1; i < fences.length; i += 1) {
        expect(compareFences(fences[i]!, fences[i - 1]!), `grant ${i}`).toBeGreaterThan(0);
      }
    }, 120_000);

    test("the lease keeps its facts: grantedAt on the store clock, renewals counted by extend, both reported by release, extend and force-release", async () => {
      const resource = uniqueResource();
      const key = { resource, businessKey: "k" };
      const me = holder("facts");
      const before = Date.now();
      const grant = mustGrant(await store.acquire({ ...key, holder: me, leaseMs: 10_000 }));
      const after = Date.now();
      // Same machine: the store clock is within a few ms of ours.
      expect(grant.grantedAt).toBeGreaterThanOrEqual(before - 50);
      expect(grant.grantedAt).toBeLessThanOrEqual(after + 50);
      expect(grant.renewals).toBe(0);
      await sleep(20);
      const extended = await store.extend({ ...key, lockId: grant.lockId, leaseMs: 10_000 });
      expect(extended).toMatchObject({ grantedAt: grant.grantedAt, renewals: 1 });
      const twice = await store.extend({ ...key, lockId: grant.lockId, leaseMs: 10_000 });
      expect(twice.renewals).toBe(2);
      // A re-entry keeps the first grant's facts and is not a renewal.
      const again = mustGrant(await store.acquire({ ...key, holder: me, leaseMs: 1_000 }));
      expect(again).toMatchObject({ grantedAt: grant.grantedAt, renewals: 2, reentry: 2 });
      expect(await store.inspect(key)).toMatchObject({ grantedAt: grant.grantedAt, renewals: 2 });
      const facts = {
        lockId: grant.lockId,
        fence: grant.fence,
        holder: me,
        grantedAt: grant.grantedAt,
        renewals: 2,
      };
      expect(await store.release({ ...key, lockId: grant.lockId })).toEqual({
        released: false,
        reentry: 1,
        lease: facts,
      });
      expect(await store.release({ ...key, lockId: grant.lockId })).toEqual({
        released: true,
        reentry: 0,
        lease: facts,
      });
      // A new grant of the key starts its own facts.
      await sleep(5);
      const next = mustGrant(await store.acquire({ ...key, holder: holder("b"), leaseMs: 10_000 }));
      expect(next.renewals).toBe(0);
      expect(next.grantedAt).toBeGreaterThan(grant.grantedAt);
      await store.extend({ ...key, lockId: next.lockId, leaseMs: 10_000 });
      const removed = await store.forceRelease(key);
      expect(removed).toMatchObject({
        lockId: next.lockId,
        grantedAt: next.grantedAt,
        renewals: 1,
      });
      if (target.events) {
        const mine = target.events.filter((e) => e.type !== "epoch" && e.resource === resource);
        expect(mine.filter((e) => e.type === "release")).toEqual([
          expect.objectContaining({ ...facts, released: false, reentry: 1 }),
          expect.objectContaining({ ...facts, released: true, reentry: 0 }),
        ]);
        expect(mine.filter((e) => e.type === "extend").map((e) => e)).toEqual([
          expect.objectContaining({ ...facts, renewals: 1, leaseMs: 10_000 }),
          expect.objectContaining({ ...facts, renewals: 2, leaseMs: 10_000 }),
          expect.objectContaining({ lockId: next.lockId, fence: next.fence, renewals: 1 }),
        ]);
        expect(mine.find((e) => e.type === "force-release")).toMatchObject({
          lockId: next.lockId,
          fence: next.fence,
          holder: next.holder,
          grantedAt: next.grantedAt,
          renewals: 1,
        });
        expect(mine.find((e) => e.type === "grant")).toMatchObject({
          lockId: grant.lockId,
          grantedAt: grant.grantedAt,
          renewals: 0,
        });
      }
    });

    describeLockDelay(() => store);

    describe("fair queue", () => {
      const HB = 5_000;
      const wait = (waiterId: string | null, heartbeatMs = HB) => ({ waiterId, heartbeatMs });

      test("a freed key goes to the first live waiter; later waiters and tries without waiting are refused meanwhile", async () => {
        const key = { resource: uniqueResource(), businessKey: "k" };
        const [a, w1, w2, other] = [holder("a"), holder("w1"), holder("w2"), holder("o")];
        const held = mustGrant(await store.acquire({ ...key, holder: a, leaseMs: 10_000 }));
        for (const [who, id] of [
          [w1, "w1"],
          [w2, "w2"],
        ] as const) {
          const queued = await store.acquire({
            ...key,
            holder: who,
            leaseMs: 10_000,
            fair: wait(id),
          });
          expect(queued).toMatchObject({ granted: false, holder: a });
        }
        await store.release({ ...key, lockId: held.lockId });
        // w2 came second, the try without waiting has no place: both wait for w1.
        expect(
          await store.acquire({ ...key, holder: w2, leaseMs: 10_000, fair: wait("w2") }),
        ).toMatchObject({ granted: false, holder: QUEUED_HOLDER, ttlMs: 0 });
        expect(
          await store.acquire({ ...key, holder: other, leaseMs: 10_000, fair: wait(null) }),
        ).toMatchObject({ granted: false, holder: QUEUED_HOLDER });
        const first = mustGrant(
          await store.acquire({ ...key, holder: w1, leaseMs: 10_000, fair: wait("w1") }),
        );
        // The holder re-enters whoever queues; a plain acquire ignores queues but not holders.
        const again = mustGrant(
          await store.acquire({ ...key, holder: w1, leaseMs: 10_000, fair: wait("w1") }),
        );
        expect(again.reentry).toBe(2);
        await store.release({ ...key, lockId: first.lockId });
        await store.release({ ...key, lockId: first.lockId });
        // w1's place was used up by its grant: w2 is next.
        mustGrant(await store.acquire({ ...key, holder: w2, leaseMs: 10_000, fair: wait("w2") }));
      });

      test("a waiter that stops calling loses its place after its heartbeat; one that leaves gives it up", async () => {
        const key = { resource: uniqueResource(), businessKey: "k" };
        const [a, dead, gone, live] = [holder("a"), holder("d"), holder("g"), holder("l")];
        const held = mustGrant(await store.acquire({ ...key, holder: a, leaseMs: 10_000 }));
        await store.acquire({ ...key, holder: dead, leaseMs: 10_000, fair: wait("dead", 150) });
        await store.acquire({ ...key, holder: gone, leaseMs: 10_000, fair: wait("gone") });
        await store.acquire({ ...key, holder: live, leaseMs: 10_000, fair: wait("live") });
        expect(await store.leaveQueue({ ...key, waiterId: "gone" })).toBe(true);
        expect(await store.leaveQueue({ ...key, waiterId: "gone" })).toBe(false);
        await store.release({ ...key, lockId: held.lockId });
        expect(
          await store.acquire({ ...key, holder: live, leaseMs: 10_000, fair: wait("live") }),
        ).toMatchObject({ granted: false, holder: QUEUED_HOLDER });
        await sleep(300);
        mustGrant(
          await store.acquire({ ...key, holder: live, leaseMs: 10_000, fair: wait("live") }),
        );
      });

      test("readQueue lists the live places from the head in arrival order, skipping dead and left ones, and writes nothing", async () => {
        const key = { resource: uniqueResource(), businessKey: "k" };
        expect(await store.readQueue(key)).toEqual([]);
        const held = mustGrant(
          await store.acquire({ ...key, holder: holder("a"), leaseMs: 10_000 }),
        );
        const ids = ["q1", "dead", "q2", "gone", "q3"];
        const before = Date.now();
        for (const id of ids) {
          await store.acquire({
            ...key,
            holder: holder(id),
            leaseMs: 10_000,
            fair: wait(id, id === "dead" ? 150 : HB),
          });
        }
        // A renewal keeps the place where it was.
        await store.acquire({ ...key, holder: holder("q1"), leaseMs: 10_000, fair: wait("q1") });
        expect((await store.readQueue(key)).map((place) => place.waiterId)).toEqual(ids);
        expect(await store.leaveQueue({ ...key, waiterId: "gone" })).toBe(true);
        await sleep(300);
        const places = await store.readQueue(key);
        expect(places.map((place) => place.waiterId)).toEqual(["q1", "q2", "q3"]);
        for (let index = 1; index < places.length; index += 1) {
          expect(places[index]!.arrival).toBeGreaterThan(places[index - 1]!.arrival);
        }
        for (const place of places) {
          expect(place.ttlMs).toBeGreaterThan(0);
          expect(place.ttlMs).toBeLessThanOrEqual(HB);
          // The deadline is on the store's clock: within a few seconds of ours.
          expect(place.deadline).toBeGreaterThan(before + HB - 5_000);
          expect(place.deadline).toBeLessThan(Date.now() + HB + 5_000);
        }
        expect((await store.readQueue({ ...key, limit: 2 })).map((p) => p.waiterId)).toEqual([
          "q1",
          "q2",
        ]);
        // Another key of the resource, and the same key of another resource, are empty.
        expect(await store.readQueue({ ...key, businessKey: "other" })).toEqual([]);
        expect(await store.readQueue({ ...key, resource: uniqueResource() })).toEqual([]);
        // Reading changed nothing: the head still goes first once the key is free.
        await store.release({ ...key, lockId: held.lockId });
        expect(
          await store.acquire({ ...key, holder: holder("q2"), leaseMs: 10_000, fair: wait("q2") }),
        ).toMatchObject({ granted: false, holder: QUEUED_HOLDER });
        const first = mustGrant(
          await store.acquire({ ...key, holder: holder("q1"), leaseMs: 10_000, fair: wait("q1") }),
        );
        // A grant uses the place up.
        expect((await store.readQueue(key)).map((place) => place.waiterId)).toEqual(["q2", "q3"]);
        await store.release({ ...key, lockId: first.lockId });
      });

      test("readQueue with bad input gets a typed error", async () => {
        const key = { resource: uniqueResource(), businessKey: "k" };
        for (const bad of [
          { ...key, resource: "" },
          { ...key, businessKey: "" },
          { ...key, limit: 0 },
          { ...key, limit: 1.5 },
          { ...key, limit: 1_001 },
        ]) {
          await expect(store.readQueue(bad)).rejects.toBeInstanceOf(InvalidArgumentError);
        }
      });

      test("an acquire without fair ignores queues", async () => {
        const key = { resource: uniqueResource(), businessKey: "k" };
        const held = mustGrant(
          await store.acquire({ ...key, holder: holder("a"), leaseMs: 10_000 }),
        );
        await store.acquire({ ...key, holder: holder("w"), leaseMs: 10_000, fair: wait("w") });
        await store.release({ ...key, lockId: held.lockId });
        mustGrant(await store.acquire({ ...key, holder: holder("plain"), leaseMs: 10_000 }));
      });

      test("bad fair input gets a typed error and changes nothing", async () => {
        const key = { resource: uniqueResource(), businessKey: "k" };
        for (const fair of [
          { waiterId: "", heartbeatMs: 1_000 },
          { waiterId: "has space", heartbeatMs: 1_000 },
          { waiterId: "x".repeat(65), heartbeatMs: 1_000 },
          { waiterId: "ok", heartbeatMs: 0 },
          { waiterId: "ok", heartbeatMs: 60_001 },
          { waiterId: "ok", heartbeatMs: 1.5 },
        ]) {
          await expect(
            store.acquire({ ...key, holder: holder(), leaseMs: 1_000, fair }),
          ).rejects.toBeInstanceOf(InvalidArgumentError);
        }
        await expect(store.leaveQueue({ ...key, waiterId: "bad id" })).rejects.toBeInstanceOf(
          InvalidArgumentError,
        );
        expect(await store.inspect(key)).toBeNull();
        mustGrant(
          await store.acquire({ ...key, holder: holder(), leaseMs: 1_000, fair: wait(null) }),
        );
      });
    });

    test("list pages through every live lease of a resource", async () => {
      const resource = uniqueResource();
      const held = new Set<string>();
      for (let i = 0; i < 25; i += 1) {
        mustGrant(
          await store.acquire({
            resource,
            businessKey: `k${i}`,
            holder: holder(),
            leaseMs: 10_000,
          }),
        );
        held.add(`k${i}`);
      }
      const seen = new Set<string>();
      let cursor: string | undefined;
      for (let page = 0; page < 100; page += 1) {
        const result = await store.list({ resource, limit: 7, ...(cursor ? { cursor } : {}) });
        expect(result.leases.length).toBeLessThanOrEqual(7);
        for (const lease of result.leases) {
          expect(lease.resource).toBe(resource);
          seen.add(lease.businessKey);
        }
        if (result.cursor === null) break;
        cursor = result.cursor;
      }
      expect(seen).toEqual(held);
    });

    test("force-release removes a lease whoever holds it, or only the named grant", async () => {
      const resource = uniqueResource();
      const key = { resource, businessKey: "k" };
      const grant = mustGrant(await store.acquire({ ...key, holder: holder(), leaseMs: 10_000 }));
      expect(await store.forceRelease({ ...key, lockId: "AAAAAAAAAAAAAAAAAAAAAA" })).toBeNull();
      expect((await store.inspect(key))?.lockId).toBe(grant.lockId);
      const removed = await store.forceRelease(key);
      expect(removed?.lockId).toBe(grant.lockId);
      expect(await store.inspect(key)).toBeNull();
      await expect(store.release({ ...key, lockId: grant.lockId })).rejects.toBeInstanceOf(
        NotHolderError,
      );
    });

    test("bad input gets a typed error and changes nothing", async () => {
      const resource = uniqueResource();
      const key = { resource, businessKey: "k" };
      const grant = mustGrant(await store.acquire({ ...key, holder: holder(), leaseMs: 10_000 }));
      const bad: Array<[string, () => Promise<unknown>]> = [
        [
          "empty resource",
          () => store.acquire({ resource: "", businessKey: "x", holder: holder(), leaseMs: 1_000 }),
        ],
        [
          "oversize resource",
          () =>
            store.acquire({
              resource: "r".repeat(129),
              businessKey: "x",
              holder: holder(),
              leaseMs: 1_000,
            }),
        ],
        [
          "empty key",
          () => store.acquire({ resource, businessKey: "", holder: holder(), leaseMs: 1_000 }),
        ],
        [
          "oversize key",
          () =>
            store.acquire({
              resource,
              businessKey: "é".repeat(101),
              holder: holder(),
              leaseMs: 1_000,
            }),
        ],
        [
          "braces",
          () => store.acquire({ resource, businessKey: "{x}", holder: holder(), leaseMs: 1_000 }),
        ],
        [
          "control char",
          () => store.acquire({ resource, businessKey: "a\nb", holder: holder(), leaseMs: 1_000 }),
        ],
        [
          "lease 0",
          () => store.acquire({ resource, businessKey: "x", holder: holder(), leaseMs: 0 }),
        ],
        [
          "lease < 0",
          () => store.acquire({ resource, businessKey: "x", holder: holder(), leaseMs: -5 }),
        ],
        [
          "lease over cap",
          () => store.acquire({ resource, businessKey: "x", holder: holder(), leaseMs: 60_001 }),
        ],
        [
          "lease fraction",
          () => store.acquire({ resource, businessKey: "x", holder: holder(), leaseMs: 1.5 }),
        ],
        [
          "lease NaN",
          () =>
            store.acquire({ resource, businessKey: "x", holder: holder(), leaseMs: Number.NaN }),
        ],
        [
          "empty owner",
          () =>
            store.acquire({
              resource,
              businessKey: "x",
              holder: { clientId: "c", ownerId: "" },
              leaseMs: 1_000,
            }),
        ],
        [
          "pipe in owner",
          () =>
            store.acquire({
              resource,
              businessKey: "x",
              holder: { clientId: "c", ownerId: "a|b" },
              leaseMs: 1_000,
            }),
        ],
        ["malformed lockId", () => store.release({ ...key, lockId: "nope" })],
        ["extend over cap", () => store.extend({ ...key, lockId: grant.lockId, leaseMs: 60_001 })],
        ["extend lease 0", () => store.extend({ ...key, lockId: grant.lockId, leaseMs: 0 })],
        ["list limit 0", () => store.list({ resource, limit: 0 })],
        ["list bad cursor", () => store.list({ resource, cursor: "garbage" })],
      ];
      for (const [label, call] of bad) {
        await expect(call(), label).rejects.toBeInstanceOf(InvalidArgumentError);
      }
      expect((await store.list({ resource })).leases.map((l) => l.businessKey)).toEqual(["k"]);
      const after = await store.inspect(key);
      expect(after?.lockId).toBe(grant.lockId);
      expect(after!.ttlMs).toBeGreaterThan(8_000);
    });
  });
}
