import type { EventSink, RedisTopology, StoreEvent } from "../../src/index.js";
import { RedisLockStore } from "../../src/index.js";
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
