import { LocalSemaphoreStore } from "../../src/local/local-semaphore-store.js";
import { describeSemaphoreConformance } from "./semaphore-conformance.js";

describeSemaphoreConformance("local", () => {
  const store = new LocalSemaphoreStore();
  return Promise.resolve({ store, tier: "local", fenced: false, close: () => store.close() });
});
