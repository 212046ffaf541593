import { startSentinelGroup, type SentinelGroup } from "@warden/testkit";
import { afterAll, beforeAll } from "vitest";
import type { RedisLockStore } from "../../src/index.js";
import { MemoryEpochSource } from "./memory-epoch-source.js";
import { openRedisStore } from "./redis-target.js";

/** A file's private sentinel group and a store that follows it; filled in by `beforeAll`. */
export interface SentinelStore {
  group: SentinelGroup;
  store: RedisLockStore;
  readonly epochSource: MemoryEpochSource;
}

/** Starts a sentinel group and a store on it for the calling test file, stopped after it. */
export function useSentinelStore(): SentinelStore {
  const fixture = { epochSource: new MemoryEpochSource() } as SentinelStore;
  beforeAll(async () => {
    fixture.group = await startSentinelGroup();
    ({ store: fixture.store } = await openRedisStore(
      {
        mode: "sentinel",
        sentinels: fixture.group.sentinels,
        masterName: fixture.group.masterName,
      },
      { epochSource: fixture.epochSource },
    ));
  });
  afterAll(async () => {
    await fixture.store?.close();
    await fixture.group?.stop();
  });
  return fixture;
}
