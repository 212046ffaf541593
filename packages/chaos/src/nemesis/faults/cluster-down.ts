import { clusterInfo, clusterTopology, type RedisNode } from "@warden/testkit";
import { clusterOf } from "../../stack/chaos-redis.js";
import type { FaultContext } from "../fault-context.js";
import { servesResource } from "./cluster-failover.js";

/** How long the cluster may take to agree it is whole again after the pair resumes, in ms. */
const WHOLE_WITHIN_MS = 30_000;

/** Until every running node reports `cluster_state:ok` (or the run is stopped). */
async function untilWhole(ctx: FaultContext, nodes: readonly RedisNode[]): Promise<boolean> {
  const until = Date.now() + WHOLE_WITHIN_MS;
  while (Date.now() < until && !ctx.signal.aborted) {
    const states = await Promise.all(
      nodes
        .filter((node) => node.state === "running")
        .map((node) =>
          clusterInfo(node).then(
            (info) => info.get("cluster_state"),
            () => "unanswered",
          ),
        ),
    );
    if (states.every((state) => state === "ok")) return true;
    await ctx.sleep(200);
  }
  return false;
}

/**
 * The cluster variant's Redis outage: a master that serves the ledger's keys and its replica
 * are frozen (SIGSTOP) for `downMs`, as when the machine or rack holding both is cut off.
 * With one slot range unserved the cluster is down: every node left refuses every key
 * `CLUSTERDOWN`, though each still answers PING. The fleet must see it (its probe asks for
 * `cluster_state:ok`), move grants to MySQL, and come back once the pair resumes and the
 * cluster is whole. The heal is the moment every node reports `cluster_state:ok` again.
 */
export async function redisClusterDown(ctx: FaultContext): Promise<void> {
  const cluster = clusterOf(ctx.stack.redis);
  const masters = await cluster.masters();
  const serving = await Promise.all(
    masters.map((m) => servesResource(m, ctx.stack.resources.ledger)),
  );
  const candidates = masters.filter((_, i) => serving[i]);
  const master = (candidates.length > 0 ? candidates : masters)[0]!;
  const lines = await clusterTopology(master);
  const me = lines.find((line) => line.flags.includes("myself"));
  const replicaLine = lines.find((line) => me !== undefined && line.masterId === me.id);
  const replica = cluster.nodes.find((node) => node.port === replicaLine?.port);
  if (!replica) throw new Error(`no replica of master ${master.port} to take down with it`);
  ctx.start({ master: master.port, replica: replica.port });
  master.pause();
  replica.pause();
  try {
    await ctx.sleep(ctx.param("downMs"));
  } finally {
    master.resume();
    replica.resume();
  }
  const whole = await untilWhole(ctx, cluster.nodes);
  ctx.observe({ clusterDown: { master: master.port, replica: replica.port, whole } });
  ctx.heal();
}
