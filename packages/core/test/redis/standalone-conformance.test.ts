import { startRedis } from "@warden/testkit";
import { describeLockStoreConformance } from "../conformance/lock-store-conformance.js";
import { openRedisStore } from "../support/redis-target.js";

describeLockStoreConformance("redis standalone", async () => {
  const redis = await startRedis();
  const { store } = await openRedisStore({ mode: "standalone", url: redis.url });
  return {
    store,
    tier: "redis",
    fenced: true,
    async close() {
      await store.close();
      await redis.stop();
    },
  };
});
