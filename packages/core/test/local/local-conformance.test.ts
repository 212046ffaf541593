import { LocalLockStore } from "../../src/index.js";
import { describeLockStoreConformance } from "../conformance/lock-store-conformance.js";

describeLockStoreConformance("local", () => {
  const store = new LocalLockStore();
  return Promise.resolve({ store, tier: "local", fenced: false, close: () => store.close() });
});
