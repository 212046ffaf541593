import {
  startCluster,
  startSentinelGroup,
  type RedisClusterGroup,
  type RedisNode,
  type SentinelGroup,
} from "@warden/testkit";
import type { ProxyRoute } from "../proxy/proxy-protocol.js";
import type { RedisVariant } from "../schedule/fault-kinds.js";

/** The Redis the servers run on: a sentinel group or a 6-node Redis Cluster (testkit). */
export type ChaosRedis =
  | { readonly variant: "sentinel"; readonly group: SentinelGroup }
  | { readonly variant: "cluster"; readonly cluster: RedisClusterGroup };

const addr = (node: { host: string; port: number }) => `${node.host}:${node.port}`;

/** Starts the topology of `variant` through the testkit. */
export async function startChaosRedis(variant: RedisVariant): Promise<ChaosRedis> {
  return variant === "cluster"
    ? { variant, cluster: await startCluster() }
    : { variant, group: await startSentinelGroup({ masterName: "warden" }) };
}

/**
 * The fault proxy's routes to every Redis process the servers talk to (group `redis`):
 * sentinels and data nodes, or the six cluster nodes (the NAT preload also rewrites the
 * node addresses that CLUSTER SLOTS announces, so redirections pass the proxy too).
 */
export function redisRoutes(redis: ChaosRedis): ProxyRoute[] {
  const route = (prefix: string) => (node: RedisNode, i: number) => ({
    name: `${prefix}-${i}`,
    group: "redis",
    host: node.host,
    port: node.port,
  });
  if (redis.variant === "cluster") return redis.cluster.nodes.map(route("cluster"));
  return [
    ...redis.group.sentinelNodes.map(route("sentinel")),
    ...redis.group.nodes.map(route("redis")),
  ];
}

/** The servers' environment that points them at this Redis. */
export function redisServerEnv(redis: ChaosRedis): Record<string, string> {
  if (redis.variant === "cluster") {
    return { WARDEN_REDIS_CLUSTER_NODES: redis.cluster.startupNodes.map(addr).join(",") };
  }
  return {
    WARDEN_REDIS_SENTINELS: redis.group.sentinels.map(addr).join(","),
    WARDEN_REDIS_MASTER_NAME: redis.group.masterName,
  };
}

/** The sentinel group, for the faults that act through it; throws on a cluster. */
export function sentinelGroupOf(redis: ChaosRedis): SentinelGroup {
  if (redis.variant !== "sentinel") throw new Error("this fault needs the sentinel group");
  return redis.group;
}

/** The cluster, for the cluster failover; throws on a sentinel group. */
export function clusterOf(redis: ChaosRedis): RedisClusterGroup {
  if (redis.variant !== "cluster") throw new Error("this fault needs the Redis Cluster");
  return redis.cluster;
}

/** Every node that serves writes now: the sentinel group's master, or the cluster's masters. */
export async function currentMasters(redis: ChaosRedis): Promise<RedisNode[]> {
  return redis.variant === "cluster"
    ? redis.cluster.masters()
    : [await redis.group.currentMaster()];
}
