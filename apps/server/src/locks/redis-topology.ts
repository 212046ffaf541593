import type { RedisTopology } from "@warden/core";
import type { Env } from "../env.js";

function addresses(list: readonly string[]) {
  return list.map((entry) => {
    const cut = entry.lastIndexOf(":");
    return { host: entry.slice(0, cut), port: Number(entry.slice(cut + 1)) };
  });
}

/** The Redis deployment the environment names (exactly one of the three is set). */
export function redisTopologyOf(env: Env): RedisTopology {
  const password =
    env.WARDEN_REDIS_PASSWORD === undefined ? {} : { password: env.WARDEN_REDIS_PASSWORD };
  if (env.WARDEN_REDIS_SENTINELS) {
    return {
      mode: "sentinel",
      sentinels: addresses(env.WARDEN_REDIS_SENTINELS),
      masterName: env.WARDEN_REDIS_MASTER_NAME,
      ...password,
    };
  }
  if (env.WARDEN_REDIS_CLUSTER_NODES) {
    return { mode: "cluster", nodes: addresses(env.WARDEN_REDIS_CLUSTER_NODES), ...password };
  }
  return { mode: "standalone", url: env.REDIS_URL ?? "redis://127.0.0.1:6379" };
}
