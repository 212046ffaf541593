import { startRedis } from "@warden/testkit";
import { describeLockStoreConformance } from "../conformance/lock-store-conformance.js";
import { openRedisStore } from "../support/redis-target.js";

describeLockStoreConformance("redis standalone", async () => {
  const redis = await startRedis();
  const { store, events } = await openRedisStore({ mode: "standalone", url: redis.url });
  return {
    store,
    tier: "redis",
    fenced: true,
    events,
    async close() {
      await store.close();
      await redis.stop();
    },
  };
});
