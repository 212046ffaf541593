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
