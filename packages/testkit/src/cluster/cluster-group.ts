import { Cluster, type ClusterOptions } from "ioredis";
import { TESTKIT_DEFAULTS } from "../defaults.js";
import { waitUntil } from "../process/wait-until.js";
import type { RedisServer } from "../redis/redis-server.js";
import { isSyncedReplicaOf } from "../redis/replication.js";
import type { FailoverOptions, HostPort, RedisClusterGroup } from "../types.js";
import { triggerClusterFailover, waitForPromotion } from "./cluster-failover.js";
import { assertSeenByAll, isClusterNodeReady } from "./cluster-readiness.js";
import { clusterTopology, isServingMaster, type ClusterNodeLine } from "./cluster-topology.js";

/** A started Redis cluster; see {@link RedisClusterGroup}. */
export class RedisCluster implements RedisClusterGroup {
  readonly nodes: readonly RedisServer[];
  readonly startupNodes: readonly HostPort[];

  constructor(nodes: RedisServer[]) {
    this.nodes = nodes;
    this.startupNodes = nodes.map((node) => node.address());
  }

  /** Resolves once every node sees all members and slots and every replica has synced. */
  async waitUntilReady(): Promise<void> {
    await waitUntil(
      async () => {
        const ready = await Promise.all(
          this.nodes.map((n) => isClusterNodeReady(n, this.nodes.length)),
        );
        return ready.every(Boolean);
      },
      {
        what: "cluster nodes to agree on slots and finish replica sync",
        timeoutMs: TESTKIT_DEFAULTS.startupTimeoutMs,
        intervalMs: 100,
      },
    );
  }

  /** `CLUSTER NODES` from the first running node that answers. */
  async #topology(): Promise<ClusterNodeLine[]> {
    let lastError: unknown = new Error("no running cluster node");
    for (const node of this.nodes.filter((n) => n.state === "running")) {
      try {
        return await clusterTopology(node);
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  }

  #node(port: number): RedisServer {
    const node = this.nodes.find((n) => n.port === port);
    if (!node) throw new Error(`port ${port} is not a node of this cluster`);
    return node;
  }

  async masters(): Promise<RedisServer[]> {
    const lines = await this.#topology();
    return lines.filter(isServingMaster).map((line) => this.#node(line.port));
  }

  client(options: ClusterOptions = {}): Cluster {
    return new Cluster([...this.startupNodes], options);
  }

  async failoverMaster(master: RedisServer, opts: FailoverOptions = {}): Promise<RedisServer> {
    const replica = await this.#syncedReplicaOf(master);
    await triggerClusterFailover(opts.how ?? "kill", master, replica);
    await waitForPromotion(this.nodes, replica, master);
    return replica;
  }

  /**
   * Waits for a running replica of `master` that has finished its sync and that every
   * peer knows as such: right after a restart or an earlier failover the old master may
   * still be rejoining, and a replica without data or without votes cannot take over.
   */
  #syncedReplicaOf(master: RedisServer): Promise<RedisServer> {
    return waitUntil(
      async () => {
        const candidates = this.nodes.filter((n) => n !== master && n.state === "running");
        const synced = await Promise.all(candidates.map((n) => isSyncedReplicaOf(n, master)));
        const replica = candidates.find((_, i) => synced[i]);
        if (!replica) throw new Error(`no synced replica of port ${master.port} yet`);
        await assertSeenByAll(this.nodes, replica);
        if (master.state === "running") await assertSeenByAll(this.nodes, master);
        return replica;
      },
      {
        what: `a synced replica of port ${master.port} to fail over to`,
        timeoutMs: TESTKIT_DEFAULTS.startupTimeoutMs,
        intervalMs: 100,
      },
    );
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.stop()));
  }
}
