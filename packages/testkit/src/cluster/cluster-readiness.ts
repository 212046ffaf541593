import type { RedisServer } from "../redis/redis-server.js";
import { replicationInfo } from "../redis/replication.js";
import type { HostPort } from "../types.js";
import { clusterInfo, clusterTopology } from "./cluster-topology.js";

/** Hash slots of a Redis cluster; all must be served for `cluster_state:ok`. */
export const CLUSTER_SLOTS = 16_384;

/**
 * Whether `node` sees a healthy cluster (`knownNodes` members when given, all slots
 * served) and, as a replica, has finished its sync: an unsynced replica refuses to
 * fail over, and would serve an empty data set if it did.
 */
export async function isClusterNodeReady(node: HostPort, knownNodes?: number): Promise<boolean> {
  const info = await clusterInfo(node);
  if (info.get("cluster_state") !== "ok") return false;
  if (info.get("cluster_slots_ok") !== String(CLUSTER_SLOTS)) return false;
  if (knownNodes !== undefined && info.get("cluster_known_nodes") !== String(knownNodes))
    return false;
  const replication = await replicationInfo(node);
  return replication.get("role") === "master" || replication.get("master_link_status") === "up";
}

/**
 * Readiness of a cluster node after (re)start: a fresh node that knows only itself is
 * ready once it answers; a restarted member must rejoin, sync as a replica, and be
 * seen in its new role by every running peer.
 */
export async function isClusterNodeBack(
  node: RedisServer,
  peers: readonly RedisServer[],
): Promise<boolean> {
  const info = await clusterInfo(node);
  if (info.get("cluster_known_nodes") === "1") return true;
  if (!(await isClusterNodeReady(node))) return false;
  await assertSeenByAll(peers, node);
  return true;
}

/** Flags with which a node cannot take part in a failover. */
const UNHEALTHY_FLAGS = new Set(["fail", "fail?", "handshake", "noaddr"]);

/**
 * Throws unless every other running node sees `subject` healthy and in the role it
 * reports itself. A restarted node knows its new role before its peers do, and a
 * replica the other masters still take for a failed master gets no votes: its
 * failover would stall until they catch up.
 */
export async function assertSeenByAll(
  nodes: readonly RedisServer[],
  subject: RedisServer,
): Promise<void> {
  const self = (await clusterTopology(subject)).find((line) => line.flags.includes("myself"));
  if (!self) throw new Error(`port ${subject.port} does not list itself`);
  const peers = nodes.filter((node) => node !== subject && node.state === "running");
  for (const peer of peers) {
    const line = (await clusterTopology(peer)).find((l) => l.id === self.id);
    if (!line || line.flags.some((flag) => UNHEALTHY_FLAGS.has(flag))) {
      throw new Error(`port ${peer.port} sees port ${subject.port} as ${line?.flags.join(",")}`);
    }
    if (line.masterId !== self.masterId) {
      throw new Error(`port ${peer.port} has an old view of port ${subject.port}'s role`);
    }
  }
}
