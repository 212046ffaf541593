import { Cluster, Redis, type RedisOptions } from "ioredis";
import type { RedisTopology } from "@warden/core";

/**
 * A Redis (or Cluster) client for side state that must answer fast or not at all (shared
 * throttles, the alert evaluator's spool reports): `options` should disable the offline queue
 * and retries. In cluster mode the node connections get the same options and the cluster
 * client no offline queue either, so a call while the cluster is not ready fails at once.
 */
export function connectFailFast(topology: RedisTopology, options: RedisOptions): Redis | Cluster {
  switch (topology.mode) {
    case "standalone":
      return new Redis(topology.url, options);
    case "sentinel":
      return new Redis({
        ...options,
        sentinels: topology.sentinels.map((s) => ({ host: s.host, port: s.port })),
        name: topology.masterName,
        ...(topology.password === undefined ? {} : { password: topology.password }),
      });
    case "cluster":
      return new Cluster(
        topology.nodes.map((n) => ({ host: n.host, port: n.port })),
        {
          enableOfflineQueue: false,
          redisOptions: {
            ...options,
            ...(topology.password === undefined ? {} : { password: topology.password }),
          },
        },
      );
  }
}
