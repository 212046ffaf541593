import { startCluster } from "@warden/testkit";
import { openRedisRwTarget } from "../support/redis-target.js";
import { describeRwLockStoreConformance } from "./rw-lock-store-conformance.js";

describeRwLockStoreConformance("redis cluster", async () => {
  const cluster = await startCluster();
  return openRedisRwTarget({ mode: "cluster", nodes: cluster.startupNodes }, () => cluster.stop());
});
