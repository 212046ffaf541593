import { startRedis, type StandaloneRedis } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { LockUnavailableError, type RedisLockStore } from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openRedisStore } from "../support/redis-target.js";

// Another client's script that runs past Redis's busy threshold blocks the server: Redis
// answers every other call BUSY, without running it, until the script ends or is killed.
// The store must say so as a refusal that passes (when to retry), so a server-side wait
// goes on through it, and the key must be untouched.

let redis: StandaloneRedis;
let store: RedisLockStore;

beforeAll(async () => {
  // A low threshold so BUSY starts at once (the default is 5 s).
  redis = await startRedis({ args: ["--busy-reply-threshold", "50"] });
  ({ store } = await openRedisStore({ mode: "standalone", url: redis.url }));
});

afterAll(async () => {
  await store?.close();
  await redis?.stop();
});

test("while another client's script keeps Redis busy, an acquire is refused BUSY with when to retry, and is granted once the script is killed", async () => {
  const key = { resource: uniqueResource(), businessKey: "k" };
  const runner = redis.client();
  const killer = redis.client();
  // A read-only script that never ends on its own: SCRIPT KILL ends it.
  const stuck = runner.eval("while true do end", 0).catch((e: unknown) => e);
  try {
    await eventually(async () => {
      const pong = await killer.ping().catch((e: unknown) => e);
      if (!String(pong).includes("BUSY")) throw new Error("Redis is not busy yet");
    }, 5_000);
    const error = await store
      .acquire({ ...key, holder: holder("during"), leaseMs: 5_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockUnavailableError);
    expect((error as Error).message).toMatch(/^Redis refused acquire: BUSY /);
    expect(error).toMatchObject({ reason: "store-unavailable", retryAfterMs: 250 });
  } finally {
    await eventually(() => killer.call("SCRIPT", "KILL"), 5_000);
    expect(String(await stuck)).toMatch(/killed/i);
    runner.disconnect();
    killer.disconnect();
  }
  // Nothing was written while Redis was busy: the key is free for the first caller after.
  const after = await store.acquire({ ...key, holder: holder("after"), leaseMs: 5_000 });
  expect(after.granted).toBe(true);
});
