import { startCluster, startRedis, startSentinelGroup } from "@warden/testkit";
import type { RedisTopology } from "../../src/index.js";
import { RedisSemaphoreStore } from "../../src/redis/semaphore/redis-semaphore-store.js";
import { MemoryEpochSource } from "../support/memory-epoch-source.js";
import { describeSemaphoreConformance } from "./semaphore-conformance.js";

async function openOn(topology: RedisTopology, stop: () => Promise<void>) {
  const store = await RedisSemaphoreStore.open({ topology, epochSource: new MemoryEpochSource() });
  return {
    store,
    tier: "redis" as const,
    fenced: true,
    async close() {
      await store.close();
      await stop();
    },
  };
}

describeSemaphoreConformance("redis standalone", async () => {
  const redis = await startRedis();
  return openOn({ mode: "standalone", url: redis.url }, () => redis.stop());
});

describeSemaphoreConformance("redis sentinel", async () => {
  const group = await startSentinelGroup();
  return openOn(
    { mode: "sentinel", sentinels: group.sentinels, masterName: group.masterName },
    () => group.stop(),
  );
});

describeSemaphoreConformance("redis cluster", async () => {
  const cluster = await startCluster();
  return openOn({ mode: "cluster", nodes: cluster.startupNodes }, () => cluster.stop());
});
