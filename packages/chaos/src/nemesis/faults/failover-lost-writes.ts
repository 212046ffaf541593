import { setTimeout as sleep } from "node:timers/promises";
import type { Lock } from "@warden/sdk";
import { Redis } from "ioredis";
import type { RedisNode } from "@warden/testkit";
import { clusterOf, sentinelGroupOf } from "../../stack/chaos-redis.js";
import type { FaultContext } from "../fault-context.js";

/** The probe's key: nothing else locks it, so whoever holds it is the probe. */
const PROBE_KEY = "probe-lost-grant";
/** The probe's first lease: the resource's longest, so it is still live after the failover. */
const PROBE_LEASE_MS = 10_000;
/** How long the fault waits for the sentinels (or the cluster) to promote a replica. */
const PROMOTION_WAIT_MS = 30_000;

/** Runs `work` on a connection of its own to `node`. */
async function onNode<T>(node: RedisNode, work: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis(node.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  // A node being killed or promoted may drop the connection: the call's rejection says so.
  client.on("error", () => undefined);
  try {
    await client.connect();
    return await work(client);
  } finally {
    client.disconnect();
  }
}

/** The master's replication offset: how far the stream it would send replicas has got. */
async function replicationOffset(client: Redis): Promise<number> {
  const info = await client.info("replication");
  return Number(/master_repl_offset:(\d+)/.exec(info)?.[1] ?? -1);
}

/** What the probe's first try got, and the lock when it was granted. */
async function firstProbe(ctx: FaultContext): Promise<{ answer: string; lock: Lock | null }> {
  const { probe, resources } = ctx.stack;
  try {
    const lock = await probe.tryAcquire(resources.ledger, PROBE_KEY, { leaseMs: PROBE_LEASE_MS });
    return { answer: lock ? `granted on ${lock.tier}` : "held", lock };
  } catch (error) {
    return { answer: (error as Error).name, lock: null };
  }
}

/** The master whose loss the fault causes, and the replicas that will not have its last writes. */
interface Target {
  readonly master: RedisNode;
  readonly replicas: readonly RedisNode[];
  /** Resolves with the node promoted in the master's place, or null when none comes in time. */
  promoted(): Promise<RedisNode | null>;
}

/** Polls `find` every 100 ms for up to {@link PROMOTION_WAIT_MS}. */
async function poll(
  ctx: FaultContext,
  find: () => Promise<RedisNode | null>,
): Promise<RedisNode | null> {
  const deadline = Date.now() + PROMOTION_WAIT_MS;
  while (Date.now() < deadline && !ctx.signal.aborted) {
    const found = await find().catch(() => null);
    if (found) return found;
    await sleep(100);
  }
  return null;
}

/** Whether `node` answers `ROLE` as a master. */
async function isMaster(node: RedisNode): Promise<boolean> {
  const role = await onNode(node, (client) => client.call("ROLE")).catch(() => null);
  return Array.isArray(role) && role[0] === "master";
}

/** Sentinel: the group's master and every running replica; the sentinels promote one. */
async function sentinelTarget(ctx: FaultContext): Promise<Target> {
  const group = sentinelGroupOf(ctx.stack.redis);
  const master = await group.currentMaster();
  return {
    master,
    replicas: group.nodes.filter((node) => node !== master && node.state === "running"),
    promoted: () =>
      poll(ctx, async () => {
        const now = await group.currentMaster();
        return now !== master && (await isMaster(now)) ? now : null;
      }),
  };
}

/**
 * Cluster: the master of the probe's key (found from a lease the probe takes and gives back
 * first) and its replica; the cluster promotes the replica.
 */
async function clusterTarget(ctx: FaultContext): Promise<Target> {
  const cluster = clusterOf(ctx.stack.redis);
  const { probe, resources } = ctx.stack;
  const lock = await probe.tryAcquire(resources.ledger, PROBE_KEY);
  const pattern = `w:{${resources.ledger}#*}:l:${PROBE_KEY}`;
  let master: RedisNode | undefined;
  try {
    for (const node of await cluster.masters()) {
      const [, found] = await onNode(node, (client) =>
        client.scan("0", "MATCH", pattern, "COUNT", 100_000),
      );
      if (found.length > 0) master = node;
    }
  } finally {
    await lock?.release().catch(() => undefined);
  }
  if (!lock || !master) throw new Error("the probe's key was not found on any master");
  const role = (await onNode(master, (client) => client.call("ROLE"))) as [
    string,
    number,
    [string, string, string][],
  ];
  const ports = new Set(role[2].map(([, port]) => Number(port)));
  const replicas = cluster.nodes.filter((node) => ports.has(node.port) && node.state === "running");
  return {
    master,
    replicas,
    promoted: () =>
      poll(ctx, async () => {
        for (const node of replicas) if (await isMaster(node)) return node;
        return null;
      }),
  };
}

/**
 * The probe's key asked again once Redis grants on the new master: "granted again, fence F"
 * when the new master never had the first grant (it was lost), "held" when it did.
 */
async function askAgain(ctx: FaultContext): Promise<{ answer: string; fence: string | null }> {
  const { probe, resources } = ctx.stack;
  const deadline = Date.now() + PROMOTION_WAIT_MS;
  let answer = "not asked";
  while (Date.now() < deadline && !ctx.signal.aborted) {
    try {
      const lock = await probe.tryAcquire(resources.ledger, PROBE_KEY);
      // A MySQL answer says nothing about the new master: the fleet may have degraded.
      if (lock?.tier === "redis") {
        await lock.release().catch(() => undefined);
        return { answer: "granted again", fence: lock.fence };
      }
      if (lock) await lock.release().catch(() => undefined);
      answer = lock ? `granted on ${lock.tier}` : "held";
    } catch (error) {
      answer = (error as Error).name;
    }
    await sleep(200);
  }
  return { answer, fence: null };
}

/**
 * A failover that loses acknowledged writes, for certain: every replica of a master (the
 * sentinel group's; on a cluster, the probe key's) is frozen and cut off from it (`CLIENT
 * KILL TYPE replica`), so nothing the master writes from then on reaches one, not even a
 * socket buffer read after the thaw. The master keeps granting for `writeMs` (the nemesis's
 * probe takes a key too), is killed with SIGKILL, and the replicas are thawed: the sentinels
 * (or the cluster) promote one that never had those grants. Without `waitReplicas` the
 * probe's key is granted again on the new master while its first holder still believes it
 * holds it, and only fences keep the ledger right; with it, every grant of the window was
 * undone, so there was nothing to lose. The heal is the promotion; the old master is restarted
 * as a replica before the probe asks again.
 */
export async function failoverLostWrites(ctx: FaultContext): Promise<void> {
  const target =
    ctx.stack.redis.variant === "cluster" ? await clusterTarget(ctx) : await sentinelTarget(ctx);
  const { master: oldMaster, replicas } = target;
  ctx.start({ master: oldMaster.port, replicas: replicas.map((node) => node.port) });
  let first: { answer: string; lock: Lock | null } = { answer: "not asked", lock: null };
  let offsets = { atCut: -1, atKill: -1 };
  for (const node of replicas) node.pause();
  try {
    const atCut = await onNode(oldMaster, async (client) => {
      await client.call("CLIENT", "KILL", "TYPE", "replica");
      return replicationOffset(client);
    });
    first = await firstProbe(ctx);
    await ctx.sleep(ctx.param("writeMs"));
    const atKill = await onNode(oldMaster, replicationOffset);
    offsets = { atCut, atKill };
    await oldMaster.kill9();
  } finally {
    for (const node of replicas) node.resume();
  }
  const newMaster = await target.promoted();
  if (newMaster) ctx.heal({ newMaster: newMaster.port });
  // Back as the new master's replica: on a cluster the promoted node has no other, and a
  // resource that waits for replicas can be granted its keys again only then.
  await ctx.sleep(ctx.param("restartAfterMs"));
  await oldMaster.restart();
  const again = newMaster ? await askAgain(ctx) : { answer: "no new master", fence: null };
  ctx.observe({
    lostWrites: {
      oldMaster: oldMaster.port,
      newMaster: newMaster?.port ?? null,
      waitReplicas: ctx.stack.waitReplicas,
      offsetAtCut: offsets.atCut,
      offsetAtKill: offsets.atKill,
      probe: first.answer,
      probeFence: first.lock?.fence ?? null,
      again: again.answer,
      againFence: again.fence,
    },
  });
  // The first lease is gone from Redis; its release is refused or finds nothing.
  await first.lock?.release().catch(() => undefined);
}
