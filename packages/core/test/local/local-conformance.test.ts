import { describe, expect, it } from "vitest";
import { LocalLockStore, type StoreEvent } from "../../src/index.js";
import { describeLockStoreConformance } from "../conformance/lock-store-conformance.js";

describeLockStoreConformance("local", () => {
  const events: StoreEvent[] = [];
  const store = new LocalLockStore((event) => events.push(event));
  return Promise.resolve({
    store,
    tier: "local",
    fenced: false,
    events,
    close: () => store.close(),
  });
});

describe("LocalLockStore.empty", () => {
  it("is true only while no lease is stored", async () => {
    const store = new LocalLockStore();
    try {
      expect(store.empty).toBe(true);
      const key = { resource: "unit", businessKey: "k" };
      const holder = { clientId: "c", ownerId: "o" };
      const grant = await store.acquire({ ...key, holder, leaseMs: 5_000 });
      if (!grant.granted) throw new Error("not granted");
      expect(store.empty).toBe(false);
      await store.release({ ...key, lockId: grant.lockId });
      expect(store.empty).toBe(true);
    } finally {
      await store.close();
    }
  });
});
