import { startRedis } from "@warden/testkit";
import { openRedisRwTarget } from "../support/redis-target.js";
import { describeRwLockStoreConformance } from "./rw-lock-store-conformance.js";

describeRwLockStoreConformance("redis standalone", async () => {
  const redis = await startRedis();
  return openRedisRwTarget({ mode: "standalone", url: redis.url }, () => redis.stop());
});
