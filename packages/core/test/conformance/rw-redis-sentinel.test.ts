import { startSentinelGroup } from "@warden/testkit";
import { openRedisRwTarget } from "../support/redis-target.js";
import { describeRwLockStoreConformance } from "./rw-lock-store-conformance.js";

describeRwLockStoreConformance("redis sentinel", async () => {
  const group = await startSentinelGroup();
  return openRedisRwTarget(
    { mode: "sentinel", sentinels: group.sentinels, masterName: group.masterName },
    () => group.stop(),
  );
});
