import { startRedis, type StandaloneRedis } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { RedisRwLockStore, type RedisLockStore } from "../../src/index.js";
import { rwAcquire, rwExtend } from "../../src/redis/generated/lua-scripts.js";
import { RW_RETAIN_MS } from "../../src/redis/rw/redis-rw-lock-store.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openRedisStore } from "../support/redis-target.js";
import { mustGrant } from "./rw-lock-store-conformance.js";

let redis: StandaloneRedis;
let mutex: RedisLockStore;
let store: RedisRwLockStore;

beforeAll(async () => {
  redis = await startRedis();
  const topology = { mode: "standalone" as const, url: redis.url };
  let epochSource;
  ({ store: mutex, epochSource } = await openRedisStore(topology));
  store = await RedisRwLockStore.open({ topology, epochSource });
});

afterAll(async () => {
  await store?.close();
  await mutex?.close();
  await redis?.stop();
});

test("the read-write scripts themselves refuse out-of-range leases, intents and modes, writing nothing", async () => {
  const client = redis.client();
  try {
    const tag = `{${uniqueResource()}#0}`;
    const keys = [`w:${tag}:rw:k`, `w:${tag}:f`, "w:ep", `w:${tag}:l:k`, `w:${tag}:n:k`];
    const call = (mode: string, leaseMs: string, intentMs: string) =>
      client.eval(
        rwAcquire.lua,
        rwAcquire.numberOfKeys,
        ...keys,
        mode,
        "AAAAAAAAAAAAAAAAAAAAAA",
        "c",
        "o",
        leaseMs,
        "0",
        "60000",
        String(2 ** 33),
        "1",
        intentMs,
        String(RW_RETAIN_MS),
      );
    for (const bad of ["0", "-1", "60001", "9223372036854", "1.5", "abc"]) {
      expect(await call("write", bad, "1000"), `lease ${bad}`).toEqual([-1]);
      expect(await call("write", "1000", bad), `intent ${bad}`).toEqual([-1]);
      expect(
        await client.eval(
          rwExtend.lua,
          1,
          keys[0]!,
          "AAAAAAAAAAAAAAAAAAAAAA",
          bad,
          "60000",
          "60000",
        ),
        `extend ${bad}`,
      ).toEqual([-1]);
    }
    expect(await call("upgrade", "1000", "1000")).toEqual([-1]);
    expect(await client.exists(...keys.filter((k) => k !== "w:ep"))).toBe(0);
  } finally {
    client.disconnect();
  }
});

test("every read-write state key expires: at most its latest grant plus the retention", async () => {
  const client = redis.client();
  try {
    const resource = uniqueResource();
    for (let i = 0; i < 40; i += 1) {
      const key = { resource, businessKey: `k${i}` };
      const read = mustGrant(
        await store.acquireRead({ ...key, holder: holder("r"), leaseMs: 5_000 }),
      );
      // A writer's refusal leaves an intent; the grants are released.
      await store.acquireWrite({ ...key, holder: holder("w"), leaseMs: 5_000, intentMs: 3_000 });
      await store.release({ ...key, lockId: read.lockId });
    }
    const found: string[] = [];
    let cursor = "0";
    do {
      const [next, batch] = await client.scan(
        cursor,
        "MATCH",
        `w:{${resource}#*}:rw:*`,
        "COUNT",
        1000,
      );
      cursor = next;
      found.push(...batch);
    } while (cursor !== "0");
    expect(found).toHaveLength(40);
    for (const key of found) {
      const ttl = await client.pttl(key);
      expect(ttl, key).toBeGreaterThan(0);
      expect(ttl, key).toBeLessThanOrEqual(5_000 + RW_RETAIN_MS);
    }
  } finally {
    client.disconnect();
  }
});
