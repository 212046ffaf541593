import type { EventSink, RedisTopology, StoreEvent } from "../../src/index.js";
import { RedisLockStore, RedisRwLockStore } from "../../src/index.js";
import { MemoryEpochSource } from "./memory-epoch-source.js";

/** Opens a Redis store on a topology with an in-memory epoch source, collecting events. */
export async function openRedisStore(
  topology: RedisTopology,
  options: { epochSource?: MemoryEpochSource; commandTimeoutMs?: number } = {},
) {
  const epochSource = options.epochSource ?? new MemoryEpochSource();
  const events: StoreEvent[] = [];
  const onEvent: EventSink = (event) => events.push(event);
  const store = await RedisLockStore.open({
    topology,
    epochSource,
    onEvent,
    ...(options.commandTimeoutMs ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
  });
  return { store, epochSource, events };
}

/**
 * The read-write conformance target on a Redis topology (decision 0165): a read-write store
 * and the same topology's mutex store, sharing one epoch source; `stop` ends the servers.
 */
export async function openRedisRwTarget(topology: RedisTopology, stop: () => Promise<void>) {
  const { store: mutex, epochSource } = await openRedisStore(topology);
  const store = await RedisRwLockStore.open({ topology, epochSource });
  return {
    store,
    tier: "redis" as const,
    fenced: true,
    mutex,
    async close() {
      await store.close();
      await mutex.close();
      await stop();
    },
  };
}
