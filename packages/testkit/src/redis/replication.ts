import type { HostPort } from "../types.js";
import { parseInfo } from "./parse-info.js";
import { withRedis } from "./with-redis.js";

/** The replication section of INFO as a map (`role`, `master_port`, `master_link_status`…). */
export function replicationInfo(node: HostPort): Promise<Map<string, string>> {
  return withRedis(node, async (client) => parseInfo(await client.info("replication")));
}

/** Whether `node` reports `role:master`. */
export async function isMaster(node: HostPort): Promise<boolean> {
  return (await replicationInfo(node)).get("role") === "master";
}

/**
 * Whether `node` replicates from `master` and the initial sync is done. Until then a
 * promoted replica would start empty and a cluster replica refuses to fail over.
 */
export async function isSyncedReplicaOf(node: HostPort, master: HostPort): Promise<boolean> {
  const info = await replicationInfo(node);
  return (
    info.get("role") === "slave" &&
    info.get("master_port") === String(master.port) &&
    info.get("master_link_status") === "up"
  );
}
