import { describeLockStoreConformance } from "../conformance/lock-store-conformance.js";
import { openMysqlTarget } from "./mysql-target.js";

describeLockStoreConformance("mysql", async () => {
  const target = await openMysqlTarget();
  return {
    store: target.store,
    tier: "mysql",
    fenced: true,
    events: target.events,
    close: () => target.close(),
  };
});
