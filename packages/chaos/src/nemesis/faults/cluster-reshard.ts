import { beginSlotMove, onNode, slotOfKey, type RedisNode } from "@warden/testkit";
import { clusterOf } from "../../stack/chaos-redis.js";
import { STACK_SETTINGS } from "../../stack/stack-settings.js";
import type { FaultContext } from "../fault-context.js";

/** How long the fault looks for a held ledger key to move, in ms. */
const FIND_KEY_MS = 10_000;

/** At most this many `MIGRATE` steps: a slot of the ledger holds a few dozen keys at most. */
const MAX_STEPS = 200;

/** A master with a live ledger lease on it now, and that lease's key (`w:{<r>#<s>}:l:<account>`). */
async function findHeldKey(
  ctx: FaultContext,
  masters: readonly RedisNode[],
): Promise<{ source: RedisNode; leaseKey: string } | undefined> {
  const pattern = `w:{${ctx.stack.resources.ledger}#*}:l:*`;
  const accounts: readonly string[] = STACK_SETTINGS.accounts;
  const until = Date.now() + FIND_KEY_MS;
  while (Date.now() < until && !ctx.signal.aborted) {
    for (const source of masters) {
      const [, keys] = await onNode(source, (c) => c.scan("0", "MATCH", pattern, "COUNT", 10_000));
      // A worker's account, not the probes' keys: the checker follows the account's grants.
      const leaseKey = keys.find((key) =>
        accounts.some((account) => key.endsWith(`:l:${account}`)),
      );
      if (leaseKey !== undefined) return { source, leaseKey };
    }
    await ctx.sleep(20);
  }
  return undefined;
}

/**
 * The cluster variant's resharding: the slot of a ledger account that is held right now
 * moves from its master to another one while the workers keep going, the way
 * `redis-cli --cluster reshard` moves it: `CLUSTER SETSLOT … IMPORTING / MIGRATING`, then
 * its keys one `MIGRATE` at a time (`stepMs` apart, so the workers run into a slot whose
 * lease, fence counter and epoch record are on different nodes), then `SETSLOT … NODE` on
 * every master. The heal is the last `SETSLOT`. The account's next grants come from the new
 * master, which binds a new epoch: the checker wants them fenced above every grant before.
 */
export async function redisClusterReshard(ctx: FaultContext): Promise<void> {
  const cluster = clusterOf(ctx.stack.redis);
  const masters = await cluster.masters();
  const found = await findHeldKey(ctx, masters);
  if (!found) {
    ctx.start({ moved: false });
    ctx.observe({ reshard: { moved: false } });
    ctx.heal();
    return;
  }
  const { source, leaseKey } = found;
  const others = masters.filter((node) => node.port !== source.port);
  const target = others[ctx.param("pick") % others.length]!;
  const account = leaseKey.slice(leaseKey.indexOf(":l:") + 3);
  const slot = await slotOfKey(source, leaseKey);
  ctx.start({ slot, account, source: source.port, target: target.port });

  const move = await beginSlotMove(slot, source, target);
  let moved = 0;
  for (let step = 0; step < MAX_STEPS; step += 1) {
    const keys = await move.keysLeft(1);
    if (keys.length === 0) break;
    await move.migrate(keys);
    moved += keys.length;
    await ctx.sleep(ctx.param("stepMs"));
  }
  await move.finish(masters);
  ctx.heal();
  ctx.observe({ reshard: { moved: true, slot, account, keys: moved } });
}
