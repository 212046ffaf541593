import { createConnection } from "mysql2/promise";
import type { RedisNode } from "@warden/testkit";
import { currentMasters } from "../../stack/chaos-redis.js";
import type { FaultContext } from "../fault-context.js";

/** Before the probe: the workers run into the frozen replicas meanwhile. */
const PROBE_AFTER_MS = 1_000;

/** Redis data nodes that are not masters now: every replica, running (restarted after earlier faults). */
async function currentReplicas(ctx: FaultContext): Promise<RedisNode[]> {
  const { redis } = ctx.stack;
  const masters = new Set((await currentMasters(redis)).map((node) => node.port));
  const nodes = redis.variant === "cluster" ? redis.cluster.nodes : redis.group.nodes;
  return nodes.filter((node) => !masters.has(node.port) && node.state === "running");
}

/** Grants Warden has undone for want of replicas so far: its audit's `replication-timeout` rows. */
async function undoneSoFar(wardenUrl: string): Promise<number> {
  const connection = await createConnection({ uri: wardenUrl });
  try {
    const [rows] = await connection.query(
      "SELECT COUNT(*) AS n FROM lock_event WHERE type = 'replication-timeout'",
    );
    return Number((rows as { n: number | string }[])[0]?.n ?? 0);
  } finally {
    await connection.end();
  }
}

/** One try on the ledger resource while the replicas are frozen: how it was answered. */
async function probeGrant(ctx: FaultContext): Promise<string> {
  const { probe, resources } = ctx.stack;
  try {
    const lock = await probe.tryAcquire(resources.ledger, "probe-replicas");
    if (!lock) return "held";
    await lock.release();
    return `granted on ${lock.tier}`;
  } catch (error) {
    return (error as Error).name;
  }
}

/**
 * Every Redis replica frozen with SIGSTOP while the masters keep serving: asynchronous
 * replication stalls and no replica can acknowledge anything. With `waitReplicas` above 0
 * every Redis grant must be undone and refused (the resource is unavailable, not unsafe);
 * without it grants go on as before. The heal is the thaw.
 */
export async function replicaPause(ctx: FaultContext): Promise<void> {
  const replicas = await currentReplicas(ctx);
  const undoneBefore = await undoneSoFar(ctx.stack.wardenDb.url);
  ctx.start({ replicas: replicas.map((node) => node.port) });
  for (const node of replicas) node.pause();
  try {
    await ctx.sleep(PROBE_AFTER_MS);
    const probe = await probeGrant(ctx);
    await ctx.sleep(ctx.param("downMs") - PROBE_AFTER_MS);
    // The servers' audit buffers reach the database within a flush interval (250 ms).
    const undone = (await undoneSoFar(ctx.stack.wardenDb.url)) - undoneBefore;
    ctx.observe({
      replicaPause: {
        paused: replicas.length,
        waitReplicas: ctx.stack.waitReplicas,
        probe,
        undone,
      },
    });
  } finally {
    for (const node of replicas) node.resume();
  }
  ctx.heal();
}
