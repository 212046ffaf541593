import type { Pool, RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  InvalidArgumentError,
  MysqlSemaphoreStore,
  MysqlSemaphoreSweeper,
  compareFences,
  type PermitGrant,
  type PermitResult,
  type SemaphoreAcquireInput,
} from "../../src/index.js";
import { openMysqlTarget, type MysqlTarget } from "../mysql/mysql-target.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";
import { waitForStatement } from "../support/processlist.js";

let target: MysqlTarget;
let store: MysqlSemaphoreStore;

beforeAll(async () => {
  target = await openMysqlTarget();
  store = await MysqlSemaphoreStore.open({
    connection: target.db.url,
    epochSource: target.epochSource,
  });
});

afterAll(async () => {
  await store?.close();
  await target?.close();
});

function mustGrant(result: PermitResult): PermitGrant {
  if (!result.granted) throw new Error(`expected a grant, got ${JSON.stringify(result)}`);
  return result;
}

function acquire(
  resource: string,
  businessKey: string,
  extra: Partial<SemaphoreAcquireInput> = {},
): Promise<PermitResult> {
  return store.acquire({
    resource,
    businessKey,
    holder: holder(),
    leaseMs: 30_000,
    totalPermits: 1,
    ...extra,
  });
}

async function count(table: string, resource: string, businessKey?: string): Promise<number> {
  const [rows] = await target.admin.query<RowDataPacket[]>(
    `SELECT COUNT(*) AS n FROM ${table} WHERE resource = ?${businessKey ? " AND business_key = ?" : ""}`,
    businessKey ? [resource, businessKey] : [resource],
  );
  return Number(rows[0]!.n);
}

test("the sweeper removes expired permits and idle key rows, and keeps live permits and queued keys", async () => {
  const resource = uniqueResource("sem-sweep");
  const expired = mustGrant(await acquire(resource, "expired", { leaseMs: 1_000 }));
  const live = mustGrant(await acquire(resource, "live"));
  const released = mustGrant(await acquire(resource, "released"));
  await store.release({ resource, businessKey: "released", lockId: released.lockId });
  // A fair waiter queued on a key whose permit expires: the key keeps its row for the waiter.
  mustGrant(await acquire(resource, "queued", { leaseMs: 1_000 }));
  const queued = await acquire(resource, "queued", {
    fair: { waiterId: "waiter-1", heartbeatMs: 30_000 },
  });
  expect(queued.granted).toBe(false);
  expect(await count("mysql_semaphore", resource)).toBe(4);
  await sleep(1_200);

  const sweeper = new MysqlSemaphoreSweeper(target.admin, { batchSize: 2 });
  const counts = await sweeper.sweep();
  expect(counts.permits).toBeGreaterThanOrEqual(2);
  expect(counts.keys).toBeGreaterThanOrEqual(2);
  expect(await count("mysql_semaphore_permit", resource)).toBe(1);
  expect(await count("mysql_semaphore", resource, "live")).toBe(1);
  expect(await count("mysql_semaphore", resource, "queued")).toBe(1);
  expect(await count("mysql_semaphore", resource, "expired")).toBe(0);
  expect(await count("mysql_semaphore", resource, "released")).toBe(0);
  const seen = await store.inspect({ resource, businessKey: "live" });
  expect(seen.holders.map((grant) => grant.lockId)).toEqual([live.lockId]);
  expect(seen.totalPermits).toBe(1);
  // A removed key row reads like a key never used.
  expect((await store.inspect({ resource, businessKey: "released" })).totalPermits).toBeNull();

  // A key whose row was removed starts again with a fence above everything it had.
  const again = mustGrant(await acquire(resource, "expired", { totalPermits: 2 }));
  expect(compareFences(again.fence!, expired.fence!)).toBeGreaterThan(0);
  expect(again.totalPermits).toBe(2);
  const after = mustGrant(await acquire(resource, "released"));
  expect(compareFences(after.fence!, released.fence!)).toBeGreaterThan(0);
  await sweeper.stop();
});

test("the sweeper's delete waits for an acquire holding the key's row and keeps the row it left a permit on", async () => {
  const resource = uniqueResource("sem-sweep-race");
  const first = mustGrant(await acquire(resource, "k"));
  await store.release({ resource, businessKey: "k", lockId: first.lockId });
  // A live permit that expires before the hand-made one below: the sweep of expired permits
  // stops at it, so only the key row's delete can wait for the transaction.
  mustGrant(await acquire(resource, "other", { leaseMs: 10_000 }));
  // An acquire's transaction, done by hand: it holds the key's row and writes a permit.
  const conn = await target.admin.getConnection();
  const sweeper = new MysqlSemaphoreSweeper(target.admin);
  let open = false;
  try {
    await conn.query("START TRANSACTION");
    open = true;
    await conn.query(
      "SELECT last_fence FROM mysql_semaphore WHERE resource = ? AND business_key = ? FOR UPDATE",
      [resource, "k"],
    );
    await conn.query(
      `INSERT INTO mysql_semaphore_permit (resource, business_key, lock_id, client_id, owner_id,
         permits, fence, granted_at, renewals, expires_at)
       VALUES (?, 'k', 'hand-made-permit-00000', 'c', 'o', 1, 1, NOW(3), 0,
               NOW(3) + INTERVAL 30 SECOND)`,
      [resource],
    );
    // The sweeper lists the key as idle (it cannot see the uncommitted permit); its delete
    // of the key's row waits for the row lock.
    const sweeping = sweeper.sweep();
    await waitForStatement(target.admin, "DELETE s FROM mysql_semaphore");
    await conn.query("COMMIT");
    open = false;
    const counts = await sweeping;
    expect(counts.keys).toBe(0);
  } finally {
    if (open) await conn.query("ROLLBACK");
    conn.release();
    await sweeper.stop();
  }
  expect(await count("mysql_semaphore", resource, "k")).toBe(1);
  expect(await count("mysql_semaphore_permit", resource, "k")).toBe(1);
});

test("an acquire whose key row the sweeper removed after creating it creates it again and grants", async () => {
  const resource = uniqueResource("sem-sweep-gone");
  const first = mustGrant(await acquire(resource, "k"));
  await store.release({ resource, businessKey: "k", lockId: first.lockId });
  // Between the acquire's own `INSERT IGNORE` of the key's row and its transaction, the row
  // goes, as when a sweep deletes it in that gap: the store takes its transaction's connection
  // only after creating the row.
  const pool = (store as unknown as { pool: Pool }).pool;
  const original = pool.getConnection.bind(pool);
  pool.getConnection = async () => {
    pool.getConnection = original;
    await target.admin.query(
      "DELETE FROM mysql_semaphore WHERE resource = ? AND business_key = ?",
      [resource, "k"],
    );
    return original();
  };
  try {
    const again = mustGrant(await acquire(resource, "k"));
    expect(compareFences(again.fence!, first.fence!)).toBeGreaterThan(0);
  } finally {
    pool.getConnection = original;
  }
  expect(await count("mysql_semaphore", resource, "k")).toBe(1);
});

test("the sweeper's options are checked", () => {
  expect(() => new MysqlSemaphoreSweeper(target.admin, { batchSize: 0 })).toThrow(
    InvalidArgumentError,
  );
  expect(() => new MysqlSemaphoreSweeper(target.admin, { batchSize: 501 })).toThrow(
    InvalidArgumentError,
  );
  expect(() => new MysqlSemaphoreSweeper(target.admin, { intervalMs: 1.5 })).toThrow(
    InvalidArgumentError,
  );
});
