import { startRedis, type StandaloneRedis } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { RedisLockStore } from "../../src/index.js";
import { acquireLock, acquirePlain, extendLock } from "../../src/redis/generated/lua-scripts.js";
import { eventually } from "../support/eventually.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openRedisStore } from "../support/redis-target.js";

let redis: StandaloneRedis;
let store: RedisLockStore;

beforeAll(async () => {
  redis = await startRedis();
  ({ store } = await openRedisStore({ mode: "standalone", url: redis.url }));
});

afterAll(async () => {
  await store?.close();
  await redis?.stop();
});

test("after 10 000 locks are released or expire, only the bounded counters remain", async () => {
  const client = redis.client();
  try {
    const resource = uniqueResource();
    // Bind the epoch first so its record is part of the baseline.
    const warm = await store.acquire({
      resource: "warmup",
      businessKey: "k",
      holder: holder(),
      leaseMs: 1_000,
    });
    if (!warm.granted) throw new Error("not granted");
    await store.release({ resource: "warmup", businessKey: "k", lockId: warm.lockId });
    const keysBefore = await client.dbsize();
    // Leases are long enough that a call's deadline (lease / 3) survives a loaded CI box.
    for (let batch = 0; batch < 200; batch += 1) {
      await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const businessKey = `k-${batch}-${i}`;
          const grant = await store.acquire({
            resource,
            businessKey,
            holder: holder(),
            leaseMs: i % 2 ? 1_500 : 5_000,
          });
          if (!grant.granted) throw new Error("not granted");
          if (i % 2 === 0) await store.release({ resource, businessKey, lockId: grant.lockId });
        }),
      );
    }
    // Expired keys go by Redis's own expiry; SCAN touches and reclaims them.
    await eventually(async () => {
      await client.scan("0", "MATCH", `w:{${resource}#*}:l:*`, "COUNT", 100_000);
      expect(await client.dbsize()).toBe(keysBefore + 16);
    }, 15_000);
    const counters = await client.keys(`w:{${resource}#*}:f`);
    expect(counters).toHaveLength(16);
    const counterBytes = await Promise.all(counters.map((key) => client.memory("USAGE", key)));
    for (const bytes of counterBytes) expect(bytes).toBeLessThan(200);
  } finally {
    client.disconnect();
  }
});

test("the scripts themselves refuse out-of-range leases (Redis would accept a 292 000-year PX)", async () => {
  const client = redis.client();
  try {
    const key = `w:{${uniqueResource()}#0}:l:k`;
    for (const leaseMs of ["0", "-1", "60001", "9223372036854", "1.5", "abc"]) {
      const args = [
        key,
        `${key}:f`,
        "w:ep",
        "AAAAAAAAAAAAAAAAAAAAAA",
        "c",
        "o",
        leaseMs,
        "0",
        "60000",
        String(2 ** 33),
      ];
      expect(await client.eval(acquireLock.lua, 3, ...args), leaseMs).toEqual([-1]);
      expect(await client.eval(acquirePlain.lua, 3, ...args), leaseMs).toEqual([-1]);
      expect(
        await client.eval(extendLock.lua, 1, key, "AAAAAAAAAAAAAAAAAAAAAA", leaseMs, "60000"),
        leaseMs,
      ).toEqual([-1]);
    }
    expect(await client.exists(key)).toBe(0);
  } finally {
    client.disconnect();
  }
});
