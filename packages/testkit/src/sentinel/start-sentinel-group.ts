import { launchRedisServer, launchRedisServers } from "../redis/launch-redis-server.js";
import { dataNodeArgs } from "../redis/redis-args.js";
import type { RedisServer } from "../redis/redis-server.js";
import type { RedisRestartOptions, SentinelGroup } from "../types.js";
import {
  sentinelConfigPath,
  writeSentinelConfig,
  type SentinelSettings,
} from "./sentinel-config.js";
import { RedisSentinelGroup } from "./sentinel-group.js";

/** Options of {@link startSentinelGroup}. */
export interface StartSentinelGroupOptions {
  /** @defaultValue `"warden"` */
  readonly masterName?: string;
  /**
   * Silence after which a sentinel deems the master down; a failover then completes in
   * ~2.7 s here (~2.3 s with 1 000 ms). Keep it above ~1 200 ms: right after a switch a
   * sentinel may wait up to 1 s to reconnect to the new master, and 1 000 ms made it
   * declare the healthy new master down and fail over again in 3 of 10 kill failovers.
   * @defaultValue 1 500 ms
   */
  readonly downAfterMs?: number;
  /**
   * Sentinel `failover-timeout`: how long a failover may take, and half the pause
   * before a failed one is retried.
   * @defaultValue 3 000 ms
   */
  readonly failoverTimeoutMs?: number;
}

const REPLICAS = 2;
const SENTINELS = 3;

/**
 * Starts a master, two replicas (initial sync done) and three sentinels that all know
 * the master, both replicas and each other, so a failover can start right away.
 *
 * Restarting a data node without options makes it a replica of the current master
 * (see {@link RedisSentinelGroup.restartOptionsFor}).
 */
export async function startSentinelGroup(
  opts: StartSentinelGroupOptions = {},
): Promise<SentinelGroup> {
  const masterName = opts.masterName ?? "warden";
  const started: RedisServer[] = [];
  let group: RedisSentinelGroup | undefined;
  // Late-bound: nodes are created before the group that knows the current master.
  const restartDefaults = async (node: RedisServer): Promise<RedisRestartOptions> =>
    group ? group.restartOptionsFor(node) : {};
  const dataNode = (label: string, initial: RedisRestartOptions = {}) => ({
    label,
    initial,
    restartDefaults,
    args: (port: number, dir: string, launch: RedisRestartOptions) =>
      dataNodeArgs(port, dir, launch),
  });
  try {
    const master = await launchRedisServer(dataNode("redis master"));
    started.push(master);
    const replicaPlan = dataNode("redis replica", { replicaOf: master.address() });
    const replicas = await launchRedisServers(
      Array.from({ length: REPLICAS }, () => replicaPlan),
      started,
    );
    const settings: SentinelSettings = {
      masterName,
      master: master.address(),
      downAfterMs: opts.downAfterMs ?? 1_500,
      failoverTimeoutMs: opts.failoverTimeoutMs ?? 3_000,
    };
    const sentinelPlan = {
      label: "sentinel",
      prepare: (_port: number, dir: string) => writeSentinelConfig(dir, settings),
      args: (port: number, dir: string) => [
        sentinelConfigPath(dir),
        "--sentinel",
        "--port",
        String(port),
      ],
    };
    const sentinels = await launchRedisServers(
      Array.from({ length: SENTINELS }, () => sentinelPlan),
      started,
    );
    group = new RedisSentinelGroup(masterName, [master, ...replicas], sentinels);
    await group.waitUntilReady();
    return group;
  } catch (error) {
    await Promise.allSettled(started.map((server) => server.stop()));
    throw error;
  }
}
