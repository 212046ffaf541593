import { join } from "node:path";
import { TESTKIT_DEFAULTS } from "../defaults.js";
import { freeClusterPort } from "../net/free-port.js";
import { runToCompletion } from "../process/run-to-completion.js";
import { launchRedisServers } from "../redis/launch-redis-server.js";
import { dataNodeArgs } from "../redis/redis-args.js";
import type { RedisServer } from "../redis/redis-server.js";
import type { RedisClusterGroup, RedisRestartOptions } from "../types.js";
import { RedisCluster } from "./cluster-group.js";
import { isClusterNodeBack } from "./cluster-readiness.js";

/** Options of {@link startCluster}. */
export interface StartClusterOptions {
  /**
   * `cluster-node-timeout`: silence after which a node is deemed failing. With 1 000 ms
   * a failover completes in ~2.5 s here; the default 15 s would make tests crawl.
   * @defaultValue 1 000 ms
   */
  readonly nodeTimeoutMs?: number;
}

const MASTERS = 3;
const REPLICAS_PER_MASTER = 1;

function clusterNodeArgs(
  port: number,
  dir: string,
  opts: RedisRestartOptions,
  nodeTimeoutMs: number,
): string[] {
  if (opts.replicaOf) {
    throw new Error("a cluster node gets its master from the cluster, not from replicaOf");
  }
  // prettier-ignore
  return dataNodeArgs(port, dir, {}, [
    "--cluster-enabled", "yes",
    // Relative to --dir: a restarted node finds its identity, epoch and peers again.
    "--cluster-config-file", "nodes.conf",
    "--cluster-node-timeout", String(nodeTimeoutMs),
  ]);
}

/** Joins the fresh nodes into one cluster; redis-cli picks masters and replicas. */
async function createCluster(nodes: readonly RedisServer[]): Promise<void> {
  const first = nodes[0];
  if (!first) throw new Error("no nodes to create a cluster from");
  await runToCompletion({
    command: "redis-cli",
    // prettier-ignore
    args: [
      "--cluster", "create",
      ...nodes.map((node) => `${node.host}:${node.port}`),
      "--cluster-replicas", String(REPLICAS_PER_MASTER),
      "--cluster-yes",
    ],
    logPath: join(first.dir, "cluster-create.log"),
    timeoutMs: TESTKIT_DEFAULTS.startupTimeoutMs,
    tempDir: first.dir,
  });
}

/**
 * Starts six nodes on ports whose bus port (+10000) is free too, joins them as three
 * masters with one replica each, and resolves once every node agrees on all 16384
 * slots and every replica has synced.
 */
export async function startCluster(opts: StartClusterOptions = {}): Promise<RedisClusterGroup> {
  const nodeTimeoutMs = opts.nodeTimeoutMs ?? 1_000;
  const started: RedisServer[] = [];
  const plan = {
    label: "cluster node",
    pickPort: freeClusterPort,
    isReady: (node: RedisServer) => isClusterNodeBack(node, started),
    args: (port: number, dir: string, launch: RedisRestartOptions) =>
      clusterNodeArgs(port, dir, launch, nodeTimeoutMs),
  };
  try {
    const count = MASTERS * (1 + REPLICAS_PER_MASTER);
    const nodes = await launchRedisServers(
      Array.from({ length: count }, () => plan),
      started,
    );
    await createCluster(nodes);
    const cluster = new RedisCluster(nodes);
    await cluster.waitUntilReady();
    return cluster;
  } catch (error) {
    await Promise.allSettled(started.map((server) => server.stop()));
    throw error;
  }
}
