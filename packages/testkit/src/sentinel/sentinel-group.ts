import { TESTKIT_DEFAULTS } from "../defaults.js";
import { waitUntil } from "../process/wait-until.js";
import type { RedisServer } from "../redis/redis-server.js";
import type { FailoverOptions, HostPort, RedisRestartOptions, SentinelGroup } from "../types.js";
import { triggerSentinelFailover, waitForNewMaster } from "./sentinel-failover.js";
import { waitForSentinelsSettled } from "./sentinel-settled.js";
import { isSentinelReady, sentinelMasterAddress } from "./sentinel-views.js";

/** A started sentinel group; see {@link SentinelGroup}. */
export class RedisSentinelGroup implements SentinelGroup {
  readonly masterName: string;
  readonly nodes: readonly RedisServer[];
  readonly sentinelNodes: readonly RedisServer[];
  readonly sentinels: readonly HostPort[];

  constructor(masterName: string, nodes: RedisServer[], sentinelNodes: RedisServer[]) {
    this.masterName = masterName;
    this.nodes = nodes;
    this.sentinelNodes = sentinelNodes;
    this.sentinels = sentinelNodes.map((node) => node.address());
  }

  /** Resolves once every sentinel knows the master, both replicas and its two peers. */
  async waitUntilReady(): Promise<void> {
    const expected = {
      replicas: this.nodes.length - 1,
      otherSentinels: this.sentinelNodes.length - 1,
    };
    await waitUntil(
      async () => {
        const ready = await Promise.all(
          this.sentinelNodes.map((s) => isSentinelReady(s, this.masterName, expected)),
        );
        return ready.every(Boolean);
      },
      {
        what: `sentinels of "${this.masterName}" to discover replicas and each other`,
        timeoutMs: TESTKIT_DEFAULTS.startupTimeoutMs,
        intervalMs: 100,
      },
    );
  }

  async currentMaster(): Promise<RedisServer> {
    const answers = await Promise.allSettled(
      this.sentinelNodes
        .filter((node) => node.state === "running")
        .map((sentinel) => sentinelMasterAddress(sentinel, this.masterName)),
    );
    const votes = new Map<number, number>();
    for (const answer of answers) {
      if (answer.status !== "fulfilled" || answer.value === undefined) continue;
      votes.set(answer.value.port, (votes.get(answer.value.port) ?? 0) + 1);
    }
    const [port] = [...votes].sort((a, b) => b[1] - a[1])[0] ?? [];
    const master = this.nodes.find((node) => node.port === port);
    if (!master) throw new Error(`no sentinel of "${this.masterName}" named a known master`);
    return master;
  }

  async failover(
    opts: FailoverOptions = {},
  ): Promise<{ oldMaster: RedisServer; newMaster: RedisServer }> {
    await waitForSentinelsSettled(this);
    const oldMaster = await this.currentMaster();
    await triggerSentinelFailover(opts.how ?? "kill", this, oldMaster);
    const newMaster = await waitForNewMaster(this, oldMaster);
    return { oldMaster, newMaster };
  }

  /**
   * Restart options for a data node restarted without any: a replica of the current
   * master unless it is the master. An ex-master restarted as a plain master would
   * serve an empty data set for ~10 s until sentinel converts it.
   */
  async restartOptionsFor(node: RedisServer): Promise<RedisRestartOptions> {
    const master = await this.currentMaster();
    return master === node ? {} : { replicaOf: master.address() };
  }

  async stop(): Promise<void> {
    await Promise.all([...this.sentinelNodes, ...this.nodes].map((node) => node.stop()));
  }
}
