import { startCluster } from "@warden/testkit";
import { describeLockStoreConformance } from "../conformance/lock-store-conformance.js";
import { openRedisStore } from "../support/redis-target.js";

describeLockStoreConformance("redis cluster", async () => {
  const cluster = await startCluster();
  const { store, events } = await openRedisStore({ mode: "cluster", nodes: cluster.startupNodes });
  return {
    store,
    tier: "redis",
    fenced: true,
    events,
    async close() {
      await store.close();
      await cluster.stop();
    },
  };
});
