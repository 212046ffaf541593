import type { Redis } from "ioredis";
import { currentMasters } from "../../stack/chaos-redis.js";
import { STACK_SETTINGS } from "../../stack/stack-settings.js";
import { onNextReader, pauseAfterNextRead } from "../catch-worker.js";
import type { FaultContext } from "../fault-context.js";

/** The Redis key of the lease `lockId` of `account` (the value starts with the lockId). */
async function leaseKey(client: Redis, account: string, lockId: string): Promise<string | null> {
  let cursor = "0";
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", `w:*:l:${account}`, "COUNT", 1_000);
    cursor = next;
    for (const key of keys) {
      if ((await client.get(key))?.startsWith(`${lockId}|`)) return key;
    }
  } while (cursor !== "0");
  return null;
}

/**
 * Issue item 5, Redis side: a clock jump on the Redis server expires leases early. Debian's
 * redis-server cannot run under libfaketime, so the effect is injected directly: the
 * holder stops itself right after its read (see {@link pauseAfterNextRead}), its lease key
 * gets `PEXPIRE 1`, and it is thawed once the next holder has read the account. Its write
 * must come back `stale`.
 */
export async function redisKeyExpiry(ctx: FaultContext): Promise<void> {
  const caught = await pauseAfterNextRead(ctx);
  ctx.start();
  if (!caught) {
    const worker = ctx.stack.fleet.slot(ctx.param("worker")).id;
    ctx.observe({ missed: `${worker} did not pause itself within 10 s` });
    ctx.heal();
    return;
  }
  const { slot, account, lockId } = caught;
  let resumed = false;
  const resume = (): void => {
    resumed = true;
    slot.child.signal("SIGCONT");
  };
  // On a cluster the lease lives on one of the masters: look on each.
  const clients = (await currentMasters(ctx.stack.redis)).map((master) =>
    master.client({ lazyConnect: true, maxRetriesPerRequest: 1 }),
  );
  for (const client of clients) client.on("error", () => undefined);
  try {
    ctx.observe({ paused: { worker: slot.id, inc: slot.inc, lockId, account } });
    let key: string | null = null;
    let pexpire = 0;
    for (const client of clients) {
      key = await leaseKey(client, account, lockId);
      if (key) {
        pexpire = await client.pexpire(key, 1);
        break;
      }
    }
    ctx.observe({ key, pexpire });
    const reader = await onNextReader(
      ctx,
      account,
      lockId,
      resume,
      STACK_SETTINGS.leaseMs + 10_000,
    );
    ctx.observe({
      resumedWhileReading: reader ? { worker: reader.worker, lockId: reader.lockId } : null,
    });
  } finally {
    if (!resumed) resume();
    for (const client of clients) client.disconnect();
  }
  ctx.heal();
}
