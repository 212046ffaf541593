import { LocalLockStore, LocalRwLockStore } from "../../src/index.js";
import { describeRwLockStoreConformance } from "./rw-lock-store-conformance.js";

describeRwLockStoreConformance("local", () => {
  const mutex = new LocalLockStore();
  const store = new LocalRwLockStore(mutex);
  return Promise.resolve({
    store,
    tier: "local",
    fenced: false,
    mutex,
    close: async () => {
      await store.close();
      await mutex.close();
    },
  });
});
