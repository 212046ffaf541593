import { TESTKIT_DEFAULTS } from "../defaults.js";
import { waitUntil } from "../process/wait-until.js";
import type { RedisServer } from "../redis/redis-server.js";
import { isMaster, isSyncedReplicaOf } from "../redis/replication.js";
import { withRedis } from "../redis/with-redis.js";
import type { FailoverHow } from "../types.js";
import { sentinelMasterAddress } from "./sentinel-views.js";

/** The processes of a sentinel group a failover involves. */
export interface FailoverScene {
  readonly masterName: string;
  readonly nodes: readonly RedisServer[];
  readonly sentinelNodes: readonly RedisServer[];
}

/** Injects the fault (or sends the command) that makes the sentinels fail over. */
export async function triggerSentinelFailover(
  how: FailoverHow,
  scene: FailoverScene,
  oldMaster: RedisServer,
): Promise<void> {
  switch (how) {
    case "kill":
      await oldMaster.kill9();
      return;
    case "pause":
      oldMaster.pause();
      return;
    case "command": {
      const sentinel = scene.sentinelNodes.find((node) => node.state === "running");
      if (!sentinel) throw new Error("no running sentinel to send SENTINEL FAILOVER to");
      await withRedis(sentinel, (client) => client.call("SENTINEL", "FAILOVER", scene.masterName));
      return;
    }
  }
}

/**
 * The master every running sentinel names, once they agree on one that is not
 * `oldMaster`; throws a description of the disagreement otherwise, which
 * {@link waitUntil} quotes if time runs out.
 */
async function agreedNewMaster(scene: FailoverScene, oldMaster: RedisServer): Promise<RedisServer> {
  const sentinels = scene.sentinelNodes.filter((node) => node.state === "running");
  const named = await Promise.all(
    sentinels.map(async (s) => (await sentinelMasterAddress(s, scene.masterName))?.port),
  );
  const [port] = named;
  const master = scene.nodes.find((node) => node.port === port);
  if (!master || port === oldMaster.port || named.some((p) => p !== port)) {
    throw new Error(`sentinels name master ports [${named.join(", ")}]`);
  }
  return master;
}

/**
 * Waits until a replica has been promoted (`role:master`), every running sentinel
 * names it, and every other running data node except the old master replicates from
 * it, so the next failover finds a synced candidate. The old master is left alone:
 * killed, paused, or (after `command`) still a master until sentinel converts it.
 */
export function waitForNewMaster(
  scene: FailoverScene,
  oldMaster: RedisServer,
): Promise<RedisServer> {
  return waitUntil(
    async () => {
      const candidate = await agreedNewMaster(scene, oldMaster);
      if (!(await isMaster(candidate))) throw new Error(`port ${candidate.port} is not master yet`);
      const others = scene.nodes.filter(
        (node) => node !== candidate && node !== oldMaster && node.state === "running",
      );
      for (const node of others) {
        if (!(await isSyncedReplicaOf(node, candidate))) {
          throw new Error(`port ${node.port} does not replicate from port ${candidate.port} yet`);
        }
      }
      return candidate;
    },
    {
      what: `sentinels "${scene.masterName}" to promote a replica of port ${oldMaster.port}`,
      timeoutMs: TESTKIT_DEFAULTS.failoverWaitMs,
      intervalMs: 100,
    },
  );
}
