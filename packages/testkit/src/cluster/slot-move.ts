import type { Redis } from "ioredis";
import type { RedisNode } from "../types.js";

/**
 * Runs `use` with a fresh connection to `node`, closed afterwards. One try per command and
 * errors kept off the console, so a caller moving slots under other faults sees the failure.
 */
export async function onNode<T>(node: RedisNode, use: (client: Redis) => Promise<T>): Promise<T> {
  const client = node.client({ lazyConnect: true, maxRetriesPerRequest: 1 });
  client.on("error", () => undefined);
  try {
    return await use(client);
  } finally {
    client.disconnect();
  }
}

/** The hash slot of `key`, as `node` computes it. */
export async function slotOfKey(node: RedisNode, key: string): Promise<number> {
  return Number(await onNode(node, (c) => c.call("CLUSTER", "KEYSLOT", key)));
}

const nodeId = async (node: RedisNode): Promise<string> =>
  String(await onNode(node, (c) => c.call("CLUSTER", "MYID")));

/**
 * One hash slot moving from the master `source` to the master `target` while both serve,
 * the way `redis-cli --cluster reshard` moves it: {@link beginSlotMove} marks the slot
 * `IMPORTING` on the target and `MIGRATING` on the source; `migrate` moves keys one
 * `MIGRATE` at a time; `finish` hands the slot to the target with `SETSLOT … NODE` on every
 * master. In between, a command whose keys are all still on the source runs there,
 * one whose keys have all moved is sent on with `ASK`, and one whose keys are split between
 * the two is answered `TRYAGAIN`.
 */
export interface SlotMove {
  readonly slot: number;
  readonly source: RedisNode;
  readonly target: RedisNode;
  /** Up to `count` keys of the slot still on the source. */
  keysLeft(count: number): Promise<string[]>;
  /** Moves `keys` (of the slot, on the source) to the target in one `MIGRATE`. */
  migrate(keys: readonly string[]): Promise<void>;
  /**
   * The slot belongs to the target: `SETSLOT … NODE` on the target, then the source, then
   * the other `masters` (the order `redis-cli` uses, so no node sends the slot's clients back
   * to a source that no longer has its keys). Call it once every key has moved.
   */
  finish(masters: readonly RedisNode[]): Promise<void>;
}

/** Starts moving `slot` from `source` to `target`; see {@link SlotMove}. */
export async function beginSlotMove(
  slot: number,
  source: RedisNode,
  target: RedisNode,
): Promise<SlotMove> {
  const [sourceId, targetId] = await Promise.all([nodeId(source), nodeId(target)]);
  await onNode(target, (c) => c.call("CLUSTER", "SETSLOT", slot, "IMPORTING", sourceId));
  await onNode(source, (c) => c.call("CLUSTER", "SETSLOT", slot, "MIGRATING", targetId));
  return {
    slot,
    source,
    target,
    keysLeft: async (count) =>
      (await onNode(source, (c) => c.call("CLUSTER", "GETKEYSINSLOT", slot, count))) as string[],
    migrate: async (keys) => {
      await onNode(source, (c) =>
        c.call("MIGRATE", target.host, target.port, "", 0, 5_000, "KEYS", ...keys),
      );
    },
    finish: async (masters) => {
      const others = masters.filter((n) => n.port !== target.port && n.port !== source.port);
      for (const node of [target, source, ...others]) {
        await onNode(node, (c) => c.call("CLUSTER", "SETSLOT", slot, "NODE", targetId));
      }
    },
  };
}
