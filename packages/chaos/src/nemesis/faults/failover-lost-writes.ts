import { setTimeout as sleep } from "node:timers/promises";
import type { Lock } from "@warden/sdk";
import { Redis } from "ioredis";
import type { RedisNode } from "@warden/testkit";
import { sentinelGroupOf } from "../../stack/chaos-redis.js";
import type { FaultContext } from "../fault-context.js";

/** The probe's key: nothing else locks it, so whoever holds it is the probe. */
const PROBE_KEY = "probe-lost-grant";
/** The probe's first lease: the resource's longest, so it is still live after the failover. */
const PROBE_LEASE_MS = 10_000;
/** How long the fault waits for the sentinels to promote a replica. */
const PROMOTION_WAIT_MS = 30_000;

/** Runs `work` on a connection of its own to `node`. */
async function onNode<T>(node: RedisNode, work: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis(node.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
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

/** The master the sentinels promote after `oldMaster`, or null when none comes in time. */
async function promoted(ctx: FaultContext, oldMaster: RedisNode): Promise<RedisNode | null> {
  const group = sentinelGroupOf(ctx.stack.redis);
  const deadline = Date.now() + PROMOTION_WAIT_MS;
  while (Date.now() < deadline && !ctx.signal.aborted) {
    const master = await group.currentMaster().catch(() => null);
    if (master && master !== oldMaster) {
      const role = await onNode(master, (client) => client.call("ROLE")).catch(() => null);
      if (Array.isArray(role) && role[0] === "master") return master;
    }
    await sleep(100);
  }
  return null;
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
 * A failover that loses acknowledged writes, for certain: every replica is frozen and cut off
 * from the master (`CLIENT KILL TYPE replica`), so nothing the master writes from then on
 * reaches one, not even a socket buffer read after the thaw. The master keeps granting for
 * `writeMs` (the nemesis's probe takes a key too), is killed with SIGKILL, and the replicas
 * are thawed: the sentinels promote one that never had those grants. Without `waitReplicas`
 * the probe's key is granted again on the new master while its first holder still believes
 * it holds it, and only fences keep the ledger right; with it, every grant of the window was
 * undone, so there was nothing to lose. The heal is the promotion; the old master is then
 * restarted as a replica.
 */
export async function failoverLostWrites(ctx: FaultContext): Promise<void> {
  const group = sentinelGroupOf(ctx.stack.redis);
  const oldMaster = await group.currentMaster();
  const replicas = group.nodes.filter((node) => node !== oldMaster && node.state === "running");
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
  const newMaster = await promoted(ctx, oldMaster);
  if (newMaster) ctx.heal({ newMaster: newMaster.port });
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
  await ctx.sleep(ctx.param("restartAfterMs"));
  if (oldMaster.state !== "running") await oldMaster.restart();
}
