import { migrate } from "@warden/db";
import {
  createTestDatabase,
  startRedis,
  type StandaloneRedis,
  type TestDatabase,
} from "@warden/testkit";
import { Redis } from "ioredis";
import { createPool, type Pool, type RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  FENCE_LAYOUT,
  InvalidArgumentError,
  LIMITS,
  MysqlEpochSource,
  MysqlSemaphoreStore,
  RedisSemaphoreStore,
  SEMAPHORE_LIMITS,
  type SemaphoreAcquireInput,
} from "../../src/index.js";
import { semaphoreAcquire, semaphoreAcquirePlain } from "../../src/redis/generated/lua-scripts.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";
import { MemoryEpochSource } from "../support/memory-epoch-source.js";

/** Inputs every store must refuse before writing anything. */
const BAD: Partial<SemaphoreAcquireInput>[] = [
  { permits: 0 },
  { permits: -2 },
  { permits: 4 },
  { permits: Number.NaN },
  { totalPermits: 0 },
  { totalPermits: SEMAPHORE_LIMITS.maxTotalPermits + 1 },
  { leaseMs: -1 },
];

const base = (resource: string): SemaphoreAcquireInput => ({
  resource,
  businessKey: "k",
  holder: holder(),
  leaseMs: 10_000,
  totalPermits: 3,
});

describe("semaphore store contents: Redis", () => {
  let redis: StandaloneRedis;
  let store: RedisSemaphoreStore;
  let raw: Redis;

  beforeAll(async () => {
    redis = await startRedis();
    store = await RedisSemaphoreStore.open({
      topology: { mode: "standalone", url: redis.url },
      epochSource: new MemoryEpochSource(),
    });
    raw = new Redis(redis.url);
  });
  afterAll(async () => {
    raw?.disconnect();
    await store?.close();
    await redis?.stop();
  });

  const semaphoreKeys = (resource: string) => raw.keys(`w:{${resource}#*}:s*`);

  test("bad input writes no key, and the script refuses out-of-range input on its own", async () => {
    const resource = uniqueResource();
    for (const extra of BAD) {
      await expect(store.acquire({ ...base(resource), ...extra })).rejects.toBeInstanceOf(
        InvalidArgumentError,
      );
    }
    expect(await semaphoreKeys(resource)).toEqual([]);
    // Past the TypeScript checks: each acquire script's own guard (permits above the total).
    const tag = `{${resource}#0}`;
    const keys = [
      `w:${tag}:s:x`,
      `w:${tag}:sf:x`,
      `w:${tag}:f`,
      "w:ep",
      `w:${tag}:sq:x`,
      `w:${tag}:sqw:x`,
      `w:${tag}:n:x`,
    ];
    for (const script of [semaphoreAcquire, semaphoreAcquirePlain]) {
      raw.defineCommand(script.command, { numberOfKeys: script.numberOfKeys, lua: script.lua });
      const fair = script === semaphoreAcquire;
      // The plain script takes no queue keys; the watch mark is last in both.
      const scriptKeys = fair ? keys : [...keys.slice(0, 4), keys[6]!];
      const call = (permits: number, total: number, leaseMs = 1_000) =>
        (raw as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[script.command]!(
          ...scriptKeys,
          "AAAAAAAAAAAAAAAAAAAAAA",
          "c",
          "o",
          leaseMs,
          0,
          LIMITS.maxLeaseMs,
          FENCE_LAYOUT.counterSpan,
          permits,
          total,
          0,
          ...(fair
            ? ["", SEMAPHORE_LIMITS.maxTotalPermits, ""]
            : [SEMAPHORE_LIMITS.maxTotalPermits]),
        );
      expect(await call(4, 3)).toEqual([-1]);
      expect(await call(0, 3)).toEqual([-1]);
      expect(await call(1, 0)).toEqual([-1]);
      expect(await call(1, 3, 0)).toEqual([-1]);
      expect(await call(1, SEMAPHORE_LIMITS.maxTotalPermits + 1)).toEqual([-1]);
      expect(await raw.exists(...keys.filter((k) => k !== "w:ep"))).toBe(0);
    }
  });

  test("a key's grants and facts live exactly as long as its longest live grant", async () => {
    const resource = uniqueResource();
    const ttls = async () => {
      // The key's shard is the store's (a hash of the business key): found by pattern.
      const [grants] = await raw.keys(`w:{${resource}#*}:s:k`);
      const [facts] = await raw.keys(`w:{${resource}#*}:sf:k`);
      if (!grants || !facts) throw new Error("expected both keys");
      return [await raw.pttl(grants), await raw.pttl(facts)];
    };
    const acquire = async (leaseMs: number) => {
      const grant = await store.acquire({ ...base(resource), leaseMs, totalPermits: 5 });
      if (!grant.granted) throw new Error("expected a grant");
      return grant;
    };
    // The first grant on an empty key: both keys get its lease.
    await acquire(5_000);
    for (const ttl of await ttls()) expect(ttl).toBeGreaterThan(4_000);
    // A shorter grant next to it never shortens them; a longer one lengthens them.
    await acquire(1_000);
    for (const ttl of await ttls()) expect(ttl).toBeGreaterThan(4_000);
    await acquire(20_000);
    for (const ttl of await ttls()) expect(ttl).toBeGreaterThan(19_000);
    // Alone again after releases, a new short grant is the key's longest: both keys follow it.
    const view = await store.inspect({ resource, businessKey: "k" });
    for (const permit of view.holders)
      await store.release({ ...permit, resource, businessKey: "k" });
    expect(await semaphoreKeys(resource)).toEqual([]);
    await acquire(2_000);
    for (const ttl of await ttls()) {
      expect(ttl).toBeGreaterThan(1_000);
      expect(ttl).toBeLessThanOrEqual(2_000);
    }
  });

  test("released and expired grants leave nothing behind but the shard's fence counter", async () => {
    const resource = uniqueResource();
    for (let i = 0; i < 20; i += 1) {
      const grant = await store.acquire({ ...base(resource), businessKey: `k${i % 4}` });
      if (!grant.granted) throw new Error("expected a grant");
      await store.release(grant);
    }
    expect(await semaphoreKeys(resource)).toEqual([]);
    for (let i = 0; i < 3; i += 1) {
      await store.acquire({ ...base(resource), leaseMs: 1_500 });
    }
    expect((await semaphoreKeys(resource)).length).toBe(2);
    await sleep(1_700);
    // Both keys expire with their last grant (PX), no sweeper involved.
    expect(await semaphoreKeys(resource)).toEqual([]);
    expect((await raw.keys(`w:{${resource}#*}:f`)).length).toBeGreaterThan(0);
  });
});

describe("semaphore store contents: MySQL", () => {
  let db: TestDatabase;
  let admin: Pool;
  let store: MysqlSemaphoreStore;

  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.url);
    admin = createPool({ uri: db.url, connectionLimit: 2 });
    store = await MysqlSemaphoreStore.open({
      connection: db.url,
      epochSource: new MysqlEpochSource(admin),
    });
  });
  afterAll(async () => {
    await store?.close();
    await admin?.end();
    await db?.drop();
  });

  const count = async (table: string, resource: string) => {
    const [rows] = await admin.query<RowDataPacket[]>(
      `SELECT COUNT(*) AS n FROM ${table} WHERE resource = ?`,
      [resource],
    );
    return Number(rows[0]?.n ?? 0);
  };

  test("bad input writes no row", async () => {
    const resource = uniqueResource();
    for (const extra of BAD) {
      await expect(store.acquire({ ...base(resource), ...extra })).rejects.toBeInstanceOf(
        InvalidArgumentError,
      );
    }
    expect(await count("mysql_semaphore", resource)).toBe(0);
    expect(await count("mysql_semaphore_permit", resource)).toBe(0);
  });

  test("the next acquire deletes the key's expired grant rows; the key row keeps the last fence", async () => {
    const resource = uniqueResource();
    let last = "0";
    for (let i = 0; i < 3; i += 1) {
      const grant = await store.acquire({ ...base(resource), leaseMs: 600 });
      if (!grant.granted) throw new Error("expected a grant");
      last = grant.fence!;
    }
    expect(await count("mysql_semaphore_permit", resource)).toBe(3);
    await sleep(800);
    expect(await count("mysql_semaphore_permit", resource)).toBe(3);
    const next = await store.acquire(base(resource));
    if (!next.granted) throw new Error("expected a grant");
    expect(BigInt(next.fence!)).toBeGreaterThan(BigInt(last));
    expect(await count("mysql_semaphore_permit", resource)).toBe(1);
    const [rows] = await admin.query<RowDataPacket[]>(
      "SELECT CAST(last_fence AS CHAR) AS f, total_permits FROM mysql_semaphore WHERE resource = ?",
      [resource],
    );
    expect(rows).toEqual([{ f: next.fence, total_permits: 3 }]);
  });
});
