import { startSentinelGroup } from "@warden/testkit";
import { describeLockStoreConformance } from "../conformance/lock-store-conformance.js";
import { openRedisStore } from "../support/redis-target.js";

describeLockStoreConformance("redis sentinel", async () => {
  const group = await startSentinelGroup();
  const { store, events } = await openRedisStore({
    mode: "sentinel",
    sentinels: group.sentinels,
    masterName: group.masterName,
  });
  return {
    store,
    tier: "redis",
    fenced: true,
    events,
    async close() {
      await store.close();
      await group.stop();
    },
  };
});
