import type { RedisNode, SentinelGroup } from "@warden/testkit";
import { sentinelGroupOf } from "../../stack/chaos-redis.js";
import type { FaultContext } from "../fault-context.js";

/** Kills every Redis process of the group (data nodes and sentinels); returns the master it had. */
export async function killAllRedis(group: SentinelGroup): Promise<RedisNode> {
  const master = await group.currentMaster();
  await Promise.all([...group.nodes, ...group.sentinelNodes].map((node) => node.kill9()));
  return master;
}

/**
 * Brings the whole group back on its ports: the old master as master (empty: persistence
 * is off, so every lease and fence counter is gone), its replicas, then the sentinels,
 * which resume from their rewritten config. The sentinels come last so they never see a
 * master missing and start a failover.
 */
export async function restartAllRedis(group: SentinelGroup, master: RedisNode): Promise<void> {
  await master.restart({});
  await Promise.all(
    group.nodes
      .filter((node) => node !== master)
      .map((node) => node.restart({ replicaOf: { host: master.host, port: master.port } })),
  );
  await Promise.all(group.sentinelNodes.map((node) => node.restart()));
}

/** Issue item 3: all of Redis down → the fleet must move to MySQL, and back after. */
export async function redisDown(ctx: FaultContext): Promise<void> {
  const group = sentinelGroupOf(ctx.stack.redis);
  ctx.start();
  const master = await killAllRedis(group);
  ctx.observe({ master: master.port });
  try {
    await ctx.sleep(ctx.param("downMs"));
  } finally {
    await restartAllRedis(group, master);
  }
  ctx.heal();
}

/**
 * Issue item 2: sentinel failover by kill -9 of the master. The heal is the promotion;
 * the old master is then restarted as a replica of the new one.
 */
export async function failoverKillMaster(ctx: FaultContext): Promise<void> {
  ctx.start();
  const { oldMaster, newMaster } = await sentinelGroupOf(ctx.stack.redis).failover({
    how: "kill",
  });
  ctx.observe({ oldMaster: oldMaster.port, newMaster: newMaster.port });
  ctx.heal();
  await ctx.sleep(ctx.param("restartAfterMs"));
  await oldMaster.restart();
}
