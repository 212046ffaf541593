import { expect } from "vitest";
import type { Grant, LockStore } from "../../src/index.js";
import { holder } from "./ids.js";

/**
 * Ten waiters arrive one after another, alternately through two stores (two server
 * instances on one Redis or one database) while the key is held; then, each round, every
 * waiter still waiting tries once, latest arrival first. Each round must grant exactly the
 * earliest waiter still waiting: arrival order across instances, whoever asks first.
 */
export async function expectArrivalOrderAcrossStores(
  stores: readonly [LockStore, LockStore],
  resource: string,
): Promise<void> {
  const key = { resource, businessKey: "fifo" };
  const fair = (waiterId: string) => ({ waiterId, heartbeatMs: 10_000 });
  const first = await stores[0].acquire({ ...key, holder: holder("first"), leaseMs: 10_000 });
  if (!first.granted) throw new Error("the key should start free");
  const waiters = Array.from({ length: 10 }, (_, i) => ({
    id: `w${i}`,
    who: holder(`w${i}`),
    store: stores[i % 2]!,
  }));
  for (const w of waiters) {
    const r = await w.store.acquire({ ...key, holder: w.who, leaseMs: 10_000, fair: fair(w.id) });
    expect(r.granted).toBe(false);
  }
  await stores[1].release({ ...key, lockId: first.lockId });
  const order: string[] = [];
  const waiting = [...waiters];
  while (waiting.length > 0) {
    let grant: { id: string; lock: Grant; store: LockStore } | undefined;
    for (const w of [...waiting].reverse()) {
      const r = await w.store.acquire({ ...key, holder: w.who, leaseMs: 10_000, fair: fair(w.id) });
      if (r.granted) {
        expect(grant).toBeUndefined();
        grant = { id: w.id, lock: r, store: w.store };
      }
    }
    if (!grant)
      throw new Error(`nobody was granted; waiting: ${waiting.map((w) => w.id).join(",")}`);
    order.push(grant.id);
    waiting.splice(
      waiting.findIndex((w) => w.id === grant.id),
      1,
    );
    await grant.store.release({ ...key, lockId: grant.lock.lockId });
  }
  expect(order).toEqual(waiters.map((w) => w.id));
}
