import type { RedisNode } from "@warden/testkit";
import { clusterOf } from "../../stack/chaos-redis.js";
import type { FaultContext } from "../fault-context.js";

/** Whether `master` holds a fence counter of `resource` (`w:{<resource>#<shard>}:f`). */
async function servesResource(master: RedisNode, resource: string): Promise<boolean> {
  const client = master.client({ lazyConnect: true, maxRetriesPerRequest: 1 });
  client.on("error", () => undefined);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", "w:{*}:f", "COUNT", 1_000);
      if (keys.some((key) => key.includes(`${resource}#`))) return true;
      cursor = next;
    } while (cursor !== "0");
    return false;
  } finally {
    client.disconnect();
  }
}

/**
 * The cluster variant's failover: one of the masters that serve the ledger's keys (a
 * fence counter of the resource lives there) fails over to its replica, by kill -9 of
 * the master (restarted later: it rejoins as a replica) or by `CLUSTER FAILOVER` on the
 * replica (the old master turns into its replica at once). The heal is the moment every
 * node sees the replica serving the slots.
 */
export async function redisClusterFailover(ctx: FaultContext): Promise<void> {
  const cluster = clusterOf(ctx.stack.redis);
  const masters = await cluster.masters();
  const serving = await Promise.all(
    masters.map((m) => servesResource(m, ctx.stack.resources.ledger)),
  );
  const candidates = masters.filter((_, i) => serving[i]);
  const pool = candidates.length > 0 ? candidates : masters;
  const master = pool[ctx.param("pick") % pool.length]!;
  const how = ctx.param("byCommand") === 1 ? "command" : "kill";
  ctx.start({ master: master.port, how, servesLedger: candidates.includes(master) });
  const promoted = await cluster.failoverMaster(master, { how });
  ctx.observe({ oldMaster: master.port, newMaster: promoted.port });
  ctx.heal();
  if (how === "kill") {
    await ctx.sleep(ctx.param("restartAfterMs"));
    await master.restart();
  }
}
