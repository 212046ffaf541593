import { TESTKIT_DEFAULTS } from "../defaults.js";
import { waitUntil } from "../process/wait-until.js";
import type { RedisServer } from "../redis/redis-server.js";
import { isMaster, isSyncedReplicaOf } from "../redis/replication.js";
import { withRedis } from "../redis/with-redis.js";
import type { FailoverHow } from "../types.js";
import { isClusterNodeReady } from "./cluster-readiness.js";
import { clusterTopology, isServingMaster } from "./cluster-topology.js";

/** Injects the fault, or asks the replica for a coordinated `CLUSTER FAILOVER`. */
export async function triggerClusterFailover(
  how: FailoverHow,
  master: RedisServer,
  replica: RedisServer,
): Promise<void> {
  switch (how) {
    case "kill":
      await master.kill9();
      return;
    case "pause":
      master.pause();
      return;
    case "command":
      await withRedis(replica, (client) => client.call("CLUSTER", "FAILOVER"));
      return;
  }
}

/** Throws unless `node` sees `promoted` as a master serving slots and the cluster as healthy. */
async function assertSeesPromotion(node: RedisServer, promoted: RedisServer): Promise<void> {
  const line = (await clusterTopology(node)).find((l) => l.port === promoted.port);
  if (!line || !isServingMaster(line)) {
    throw new Error(`port ${node.port} sees port ${promoted.port} as ${line?.flags.join(",")}`);
  }
  if (!(await isClusterNodeReady(node)))
    throw new Error(`port ${node.port} sees an unhealthy cluster`);
}

/**
 * Waits until `replica` reports `role:master` and every running node sees it serving
 * slots with `cluster_state:ok`. After a `command` failover the old master is running
 * again as a replica; waiting for its sync keeps a second failover possible.
 */
export async function waitForPromotion(
  nodes: readonly RedisServer[],
  replica: RedisServer,
  oldMaster: RedisServer,
): Promise<void> {
  await waitUntil(
    async () => {
      if (!(await isMaster(replica))) throw new Error(`port ${replica.port} is not master yet`);
      const running = nodes.filter((node) => node.state === "running");
      await Promise.all(running.map((node) => assertSeesPromotion(node, replica)));
      if (oldMaster.state === "running" && !(await isSyncedReplicaOf(oldMaster, replica))) {
        throw new Error(`old master port ${oldMaster.port} does not replicate yet`);
      }
      return true;
    },
    {
      what: `cluster to promote port ${replica.port} in place of port ${oldMaster.port}`,
      timeoutMs: TESTKIT_DEFAULTS.failoverWaitMs,
      intervalMs: 100,
    },
  );
}
