import { claimFence, type SqlExecutor } from "@warden/sdk";
import type { FaultContext } from "../fault-context.js";
import { sentinelGroupOf } from "../../stack/chaos-redis.js";
import { killAllRedis, restartAllRedis } from "./redis-outage.js";

/** Issue item 4: Warden's MariaDB down while Redis is up; grants must go on in Redis. */
export async function wardenDbDown(ctx: FaultContext): Promise<void> {
  const { wardenDb } = ctx.stack;
  ctx.start();
  await wardenDb.kill9();
  try {
    await ctx.sleep(ctx.param("downMs"));
  } finally {
    await wardenDb.restart();
  }
  ctx.heal();
}

// A guard must refuse a local lock before it reaches the database at all.
const UNREACHABLE_DB: SqlExecutor = {
  execute: () => Promise.reject(new Error("the guard reached the database with a fenceless lock")),
};

/**
 * While no shared tier can grant: a lock on the `allow` resource must be local (no
 * fence), a fence guard must refuse it, and the ledger's `deny` resource must fail closed.
 */
async function probeLocalMode(ctx: FaultContext): Promise<string> {
  const { probe, resources } = ctx.stack;
  let local: { tier: string; fence: string | null; guard: string } | null = null;
  try {
    const lock = await probe.tryAcquire(resources.allowLocal, "probe");
    if (lock) {
      let guard = "accepted";
      try {
        await claimFence(UNREACHABLE_DB, lock, { table: "account", where: { id: "probe" } });
      } catch (error) {
        guard =
          (error as Error).name === "LockUnavailableError" ? "refused" : (error as Error).message;
      }
      local = { tier: lock.tier, fence: lock.fence, guard };
      await lock.release();
    }
  } catch (error) {
    const { name, message } = error as Error;
    local = { tier: `error ${name}: ${message.slice(0, 200)}`, fence: null, guard: "n/a" };
  }
  if (local?.tier !== "local") return JSON.stringify(local);
  let deny = "granted";
  try {
    const lock = await probe.tryAcquire(resources.ledger, "probe-deny");
    await lock?.release();
  } catch (error) {
    deny = (error as Error).name;
  }
  ctx.observe({ localProbe: local, denyProbe: deny });
  return "local";
}

/** Issue item 4: MariaDB and Redis down together: local for `allow`, fail-closed for `deny`. */
export async function dbAndRedisDown(ctx: FaultContext): Promise<void> {
  const { wardenDb, probe, resources } = ctx.stack;
  const group = sentinelGroupOf(ctx.stack.redis);
  const downMs = ctx.param("downMs");
  // A server keeps serving the policies it has cached while MySQL is down, but cannot
  // learn one it never saw (after a restart): use the allow resource once, as a service
  // using it would have.
  await probe
    .tryAcquire(resources.allowLocal, "warm")
    .then((lock) => lock?.release())
    .catch(() => undefined);
  ctx.start();
  const until = performance.now() + downMs;
  const [master] = await Promise.all([killAllRedis(group), wardenDb.kill9()]);
  try {
    // The servers need a few probe rounds to give up on both stores.
    let probed = "not tried";
    while (probed !== "local" && performance.now() < until - 500 && !ctx.signal.aborted) {
      await ctx.sleep(500);
      probed = await probeLocalMode(ctx);
    }
    if (probed !== "local") ctx.observe({ localProbe: null, lastAttempt: probed });
    await ctx.sleep(until - performance.now());
  } finally {
    await Promise.all([wardenDb.restart(), restartAllRedis(group, master)]);
  }
  ctx.heal();
}
