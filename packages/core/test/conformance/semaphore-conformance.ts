import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { InvalidArgumentError, NotHolderError, compareFences, type Tier } from "../../src/index.js";
import type {
  PermitGrant,
  PermitResult,
  SemaphoreAcquireInput,
  SemaphoreStore,
} from "../../src/store/semaphore-store.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";
import { expectListRefusals } from "../support/list-refusals.js";

/** What a tier's semaphore test file hands the suite. */
export interface SemaphoreTarget {
  readonly store: SemaphoreStore;
  readonly tier: Tier;
  /** False for the local tier, whose grants carry no fence. */
  readonly fenced: boolean;
  close(): Promise<void>;
}

function mustGrant(result: PermitResult): PermitGrant {
  if (!result.granted) throw new Error(`expected a grant, got ${JSON.stringify(result)}`);
  return result;
}

const NEVER_ISSUED = "AAAAAAAAAAAAAAAAAAAAAA";

/**
 * The semaphore conformance suite every tier runs (docs/decisions/0160): the same assertions
 * for Redis standalone, sentinel, cluster, MySQL and local.
 */
export function describeSemaphoreConformance(
  name: string,
  open: () => Promise<SemaphoreTarget>,
): void {
  describe(`SemaphoreStore conformance: ${name}`, () => {
    let target: SemaphoreTarget;
    let store: SemaphoreStore;

    beforeAll(async () => {
      target = await open();
      store = target.store;
    });
    afterAll(async () => {
      await target?.close();
    });

    const input = (
      resource: string,
      extra: Partial<SemaphoreAcquireInput> = {},
    ): SemaphoreAcquireInput => ({
      resource,
      businessKey: "k",
      holder: holder(),
      leaseMs: 10_000,
      totalPermits: 3,
      ...extra,
    });

    test("grants up to the total, then refuses with inUse and a retryAfter within the lease", async () => {
      const resource = uniqueResource();
      const grants = [];
      for (let i = 0; i < 3; i += 1) grants.push(mustGrant(await store.acquire(input(resource))));
      expect(grants.map((g) => g.inUse)).toEqual([1, 2, 3]);
      for (const grant of grants) {
        expect(grant.lockId).toMatch(/^[A-Za-z0-9_-]{22}$/);
        expect(grant.permits).toBe(1);
        expect(grant.totalPermits).toBe(3);
        expect(grant.tier).toBe(target.tier);
        expect(grant.ttlMs).toBeGreaterThan(9_000);
        if (target.fenced) expect(grant.fence).toMatch(/^[1-9][0-9]*$/);
        else expect(grant.fence).toBeNull();
      }
      expect(new Set(grants.map((g) => g.lockId)).size).toBe(3);
      const refused = await store.acquire(input(resource));
      expect(refused.granted).toBe(false);
      if (refused.granted) return;
      expect(refused.inUse).toBe(3);
      expect(refused.totalPermits).toBe(3);
      expect(refused.queued).toBe(false);
      expect(refused.retryAfterMs).toBeGreaterThan(9_000);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(10_000);
      expect(refused.tier).toBe(target.tier);
    });

    test("a grant may take several permits; the refusal waits for enough to lapse", async () => {
      const resource = uniqueResource();
      const big = mustGrant(await store.acquire(input(resource, { permits: 2, leaseMs: 20_000 })));
      expect(big.permits).toBe(2);
      expect(big.inUse).toBe(2);
      const small = mustGrant(await store.acquire(input(resource, { leaseMs: 5_000 })));
      expect(small.inUse).toBe(3);
      await store.release(small);
      const refused = await store.acquire(input(resource, { permits: 2 }));
      expect(refused.granted).toBe(false);
      if (!refused.granted) {
        // Only the 20 s grant's expiry frees 2 permits.
        expect(refused.inUse).toBe(2);
        expect(refused.retryAfterMs).toBeGreaterThan(15_000);
      }
      mustGrant(await store.acquire(input(resource, { permits: 1 })));
      const view = await store.inspect({ resource, businessKey: "k" });
      expect(view.inUse).toBe(3);
      expect(view.totalPermits).toBe(3);
      expect(view.holders.map((h) => h.permits).sort()).toEqual([1, 2]);
    });

    test("release frees the permit at once and returns the grant; a second release is NotHolder", async () => {
      const resource = uniqueResource();
      const owner = holder("worker");
      const grants = [];
      for (let i = 0; i < 3; i += 1) {
        grants.push(mustGrant(await store.acquire(input(resource, { holder: owner }))));
      }
      const released = await store.release(grants[1]!);
      expect(released.lockId).toBe(grants[1]!.lockId);
      expect(released.fence).toBe(grants[1]!.fence);
      expect(released.holder).toEqual(owner);
      expect(released.permits).toBe(1);
      const again = mustGrant(await store.acquire(input(resource)));
      expect(again.inUse).toBe(3);
      await expect(store.release(grants[1]!)).rejects.toBeInstanceOf(NotHolderError);
      await expect(store.release(grants[1]!)).rejects.toMatchObject({
        details: { lockId: grants[1]!.lockId, reason: "expired" },
      });
    });

    test("release and extend by an unknown or another key's lockId are NotHolder and change nothing", async () => {
      const resource = uniqueResource();
      const grant = mustGrant(await store.acquire(input(resource)));
      const other = { resource, businessKey: "other" };
      await expect(store.release({ ...other, lockId: grant.lockId })).rejects.toBeInstanceOf(
        NotHolderError,
      );
      await expect(
        store.extend({ ...other, lockId: grant.lockId, leaseMs: 1_000 }),
      ).rejects.toBeInstanceOf(NotHolderError);
      await expect(
        store.release({ resource, businessKey: "k", lockId: NEVER_ISSUED }),
      ).rejects.toBeInstanceOf(NotHolderError);
      await expect(
        store.extend({ resource, businessKey: "k", lockId: NEVER_ISSUED, leaseMs: 1_000 }),
      ).rejects.toBeInstanceOf(NotHolderError);
      const view = await store.inspect({ resource, businessKey: "k" });
      expect(view.holders.map((h) => h.lockId)).toEqual([grant.lockId]);
      expect(view.holders[0]!.renewals).toBe(0);
    });

    test("expired grants are reclaimed by the next acquire, with no sweeper", async () => {
      const resource = uniqueResource();
      const started = Date.now();
      for (let i = 0; i < 3; i += 1) {
        mustGrant(await store.acquire(input(resource, { leaseMs: 1_500 })));
      }
      // A loaded box may take long to get here; only a refusal within the lease says anything.
      const refused = await store.acquire(input(resource));
      if (Date.now() - started < 1_200) expect(refused.granted).toBe(false);
      await sleep(1_700);
      const grants = [];
      for (let i = 0; i < 3; i += 1) grants.push(mustGrant(await store.acquire(input(resource))));
      expect(grants.map((g) => g.inUse)).toEqual([1, 2, 3]);
      const view = await store.inspect({ resource, businessKey: "k" });
      expect(view.holders.map((h) => h.lockId).sort()).toEqual(grants.map((g) => g.lockId).sort());
    });

    test("extend sets the remaining lease and counts renewals; an expired grant cannot be extended", async () => {
      const resource = uniqueResource();
      const grant = mustGrant(await store.acquire(input(resource, { leaseMs: 2_000 })));
      const extended = await store.extend({ ...grant, leaseMs: 30_000 });
      expect(extended.renewals).toBe(1);
      expect(extended.ttlMs).toBeGreaterThan(25_000);
      expect(extended.fence).toBe(grant.fence);
      const twice = await store.extend({ ...grant, leaseMs: 30_000 });
      expect(twice.renewals).toBe(2);
      const short = mustGrant(await store.acquire(input(resource, { leaseMs: 600 })));
      await sleep(800);
      await expect(store.extend({ ...short, leaseMs: 1_000 })).rejects.toBeInstanceOf(
        NotHolderError,
      );
      const view = await store.inspect({ resource, businessKey: "k" });
      expect(view.holders.map((h) => h.lockId)).toEqual([grant.lockId]);
      expect(view.holders[0]!.renewals).toBe(2);
    });

    test("fences strictly grow per key across permits, releases and expiries", async () => {
      if (!target.fenced) return;
      const resource = uniqueResource();
      const fences: string[] = [];
      for (let round = 0; round < 4; round += 1) {
        const grants = [];
        for (let i = 0; i < 3; i += 1) {
          const leaseMs = round % 2 === 0 ? 10_000 : 600;
          const grant = mustGrant(await store.acquire(input(resource, { leaseMs })));
          grants.push(grant);
          fences.push(grant.fence!);
        }
        if (round % 2 === 0) for (const grant of grants) await store.release(grant);
        else await sleep(800);
      }
      for (let i = 1; i < fences.length; i += 1) {
        expect(compareFences(fences[i]!, fences[i - 1]!)).toBeGreaterThan(0);
      }
    });

    test("bad input is a typed error naming the field, and changes nothing", async () => {
      const resource = uniqueResource();
      const key = { resource, businessKey: "k" };
      const cases: [Partial<SemaphoreAcquireInput>, string][] = [
        [{ permits: 0 }, "permits"],
        [{ permits: -1 }, "permits"],
        [{ permits: 1.5 }, "permits"],
        [{ permits: 4 }, "permits"],
        [{ totalPermits: 0 }, "totalPermits"],
        [{ totalPermits: 2.5 }, "totalPermits"],
        [{ totalPermits: 10_001 }, "totalPermits"],
        [{ leaseMs: 0 }, "leaseMs"],
        [{ leaseMs: 60_001 }, "leaseMs"],
        [{ holder: { clientId: "", ownerId: "o" } }, "holder.clientId"],
        [{ fair: { waiterId: "bad id!", heartbeatMs: 1_000 } }, "fair.waiterId"],
      ];
      for (const [extra, field] of cases) {
        const error = await store.acquire(input(resource, extra)).catch((e: unknown) => e);
        expect(error, JSON.stringify(extra)).toBeInstanceOf(InvalidArgumentError);
        expect((error as InvalidArgumentError).field).toBe(field);
      }
      // Nothing was written: the key has no grants and no recorded total.
      expect(await store.inspect(key)).toMatchObject({ holders: [], inUse: 0, totalPermits: null });
      const grant = mustGrant(await store.acquire(input(resource)));
      for (const [extra] of cases) {
        await store.acquire(input(resource, extra)).catch(() => undefined);
      }
      await expect(store.extend({ ...grant, leaseMs: 0 })).rejects.toBeInstanceOf(
        InvalidArgumentError,
      );
      await expect(store.release({ ...key, lockId: "short" })).rejects.toBeInstanceOf(
        InvalidArgumentError,
      );
      const view = await store.inspect(key);
      expect(view.holders.map((h) => h.lockId)).toEqual([grant.lockId]);
      expect(view.holders[0]!.renewals).toBe(0);
      expect(view.totalPermits).toBe(3);
    });

    test("inspect lists live grants soonest expiry first; forceRelease removes one or all", async () => {
      const resource = uniqueResource();
      const key = { resource, businessKey: "k" };
      const late = mustGrant(await store.acquire(input(resource, { leaseMs: 30_000 })));
      const soon = mustGrant(await store.acquire(input(resource, { leaseMs: 10_000, permits: 2 })));
      const view = await store.inspect(key);
      expect(view.holders.map((h) => h.lockId)).toEqual([soon.lockId, late.lockId]);
      expect(view.inUse).toBe(3);
      expect(view.tier).toBe(target.tier);
      const one = await store.forceRelease({ ...key, lockId: soon.lockId });
      expect(one.map((p) => p.lockId)).toEqual([soon.lockId]);
      expect(one[0]!.permits).toBe(2);
      expect(await store.forceRelease({ ...key, lockId: soon.lockId })).toEqual([]);
      const a = mustGrant(await store.acquire(input(resource)));
      const all = await store.forceRelease(key);
      expect(all.map((p) => p.lockId).sort()).toEqual([late.lockId, a.lockId].sort());
      expect((await store.inspect(key)).holders).toEqual([]);
      await expect(store.extend({ ...late, leaseMs: 1_000 })).rejects.toBeInstanceOf(
        NotHolderError,
      );
    });

    /** Every key of `resource`'s list, page by page, with each key's listed lockIds. */
    async function listAll(resource: string, limit?: number): Promise<Map<string, string[]>> {
      const listed = new Map<string, string[]>();
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.list({
          resource,
          ...(limit === undefined ? {} : { limit }),
          ...(cursor ? { cursor } : {}),
        });
        for (const view of page.keys) {
          expect(view.resource).toBe(resource);
          expect(view.tier).toBe(target.tier);
          expect(listed.has(view.businessKey), `${view.businessKey} twice`).toBe(false);
          listed.set(view.businessKey, view.holders.map((h) => h.lockId).sort());
        }
        cursor = page.cursor ?? undefined;
        pages += 1;
        expect(pages).toBeLessThan(100);
      } while (cursor !== undefined);
      return listed;
    }

    test("list pages through the keys with live grants, as inspect sees them", async () => {
      const resource = uniqueResource("sem-list");
      const businessKeys = Array.from({ length: 7 }, (_, i) => `key-${i}`);
      const grants = new Map<string, string[]>();
      for (const businessKey of businessKeys) {
        const grant = mustGrant(await store.acquire(input(resource, { businessKey })));
        grants.set(businessKey, [grant.lockId]);
      }
      // A second grant on one key; a released key, a key whose only grant expired and that
      // has a fair waiter queued since, and another resource's key: none listed extra.
      const second = mustGrant(
        await store.acquire(input(resource, { businessKey: "key-1", permits: 2 })),
      );
      grants.set("key-1", [...grants.get("key-1")!, second.lockId].sort());
      const gone = mustGrant(await store.acquire(input(resource, { businessKey: "gone" })));
      await store.release({ resource, businessKey: "gone", lockId: gone.lockId });
      const lapsing = { businessKey: "lapsed", totalPermits: 1 };
      // Long enough that the call's own deadline (a third of the lease) survives a busy box.
      mustGrant(await store.acquire(input(resource, { ...lapsing, leaseMs: 300 })));
      const waiting = await store.acquire(
        input(resource, { ...lapsing, fair: { waiterId: "w-list", heartbeatMs: 10_000 } }),
      );
      expect(waiting.granted).toBe(false);
      mustGrant(
        await store.acquire(input(uniqueResource("sem-list-other"), { businessKey: "key-0" })),
      );
      await sleep(350);
      const listed = await listAll(resource, 3);
      expect([...listed.keys()].sort()).toEqual(businessKeys);
      for (const businessKey of businessKeys) {
        expect(listed.get(businessKey)).toEqual(grants.get(businessKey));
      }
      // A key whose grants are force-released leaves the list; the default page size lists
      // the rest.
      await store.forceRelease({ resource, businessKey: "key-0" });
      expect([...(await listAll(resource)).keys()].sort()).toEqual(businessKeys.slice(1));
    });

    test("list refuses a bad resource, limit or cursor with a typed error", async () => {
      await expectListRefusals((input) => store.list(input), uniqueResource("sem-list-bad"));
    });

    test("never more than the total at once under a concurrent hammer", async () => {
      const resource = uniqueResource();
      const total = 3;
      let holding = 0;
      let most = 0;
      let granted = 0;
      const seen: string[] = [];
      const worker = async (w: number) => {
        for (let i = 0; i < 8; i += 1) {
          const result = await store.acquire(
            input(resource, { holder: holder(`w${w}`), totalPermits: total, leaseMs: 10_000 }),
          );
          if (!result.granted) {
            expect(result.inUse).toBeLessThanOrEqual(total);
            await sleep(2);
            continue;
          }
          granted += 1;
          expect(result.inUse).toBeLessThanOrEqual(total);
          if (result.fence) seen.push(result.fence);
          holding += 1;
          most = Math.max(most, holding);
          expect(holding).toBeLessThanOrEqual(total);
          await sleep(3);
          holding -= 1;
          await store.release(result);
        }
      };
      await Promise.all(Array.from({ length: 12 }, (_, w) => worker(w)));
      expect(granted).toBeGreaterThan(total);
      expect(most).toBeLessThanOrEqual(total);
      expect(new Set(seen).size).toBe(seen.length);
      expect((await store.inspect({ resource, businessKey: "k" })).inUse).toBe(0);
    });

    test("fair: earlier waiters go first, a try without a place is refused while they queue", async () => {
      const resource = uniqueResource();
      const key = { resource, businessKey: "k" };
      const fair = (waiterId: string | null) => ({ waiterId, heartbeatMs: 5_000 });
      const first = mustGrant(
        await store.acquire(input(resource, { totalPermits: 2, permits: 2 })),
      );
      const w1 = await store.acquire(input(resource, { totalPermits: 2, fair: fair("w1") }));
      const w2 = await store.acquire(input(resource, { totalPermits: 2, fair: fair("w2") }));
      expect(w1.granted || w2.granted).toBe(false);
      await store.release(first);
      // Permits are free, but w1 queued before w2.
      const early = await store.acquire(input(resource, { totalPermits: 2, fair: fair("w2") }));
      expect(early).toMatchObject({ granted: false, queued: true, inUse: 0 });
      const none = await store.acquire(input(resource, { totalPermits: 2, fair: fair(null) }));
      expect(none).toMatchObject({ granted: false, queued: true });
      mustGrant(await store.acquire(input(resource, { totalPermits: 2, fair: fair("w1") })));
      mustGrant(await store.acquire(input(resource, { totalPermits: 2, fair: fair("w2") })));
      // A waiter that leaves its place stops holding others back.
      const w3 = await store.acquire(input(resource, { totalPermits: 2, fair: fair("w3") }));
      expect(w3.granted).toBe(false);
      expect(await store.leaveQueue({ ...key, waiterId: "w3" })).toBe(true);
      expect(await store.leaveQueue({ ...key, waiterId: "w3" })).toBe(false);
      await store.forceRelease(key);
      mustGrant(await store.acquire(input(resource, { totalPermits: 2, fair: fair(null) })));
    });
  });
}
