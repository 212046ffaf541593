import { MysqlRwLockStore } from "../../src/index.js";
import { openMysqlTarget } from "../mysql/mysql-target.js";
import { describeRwLockStoreConformance } from "./rw-lock-store-conformance.js";

describeRwLockStoreConformance("mysql", async () => {
  const target = await openMysqlTarget();
  const store = await MysqlRwLockStore.open({
    connection: target.db.url,
    epochSource: target.epochSource,
  });
  // A fresh database has no epoch for the tier yet: concurrent first grants may each mint
  // one, and readers of different epochs do not share a fence (decision 0165). One grant
  // first registers the tier's epoch, as a running server's first lock would.
  const warm = await store.acquireWrite({
    resource: "rw-warm-up",
    businessKey: "k",
    holder: { clientId: "warm", ownerId: "up" },
    leaseMs: 1_000,
  });
  if (warm.granted) await store.release({ ...warm });
  return {
    store,
    tier: "mysql",
    fenced: true,
    mutex: target.store,
    async close() {
      await store.close();
      await target.close();
    },
  };
});
