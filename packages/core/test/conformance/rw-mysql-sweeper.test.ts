import type { RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  InvalidArgumentError,
  MysqlRwLockStore,
  MysqlRwSweeper,
  compareFences,
} from "../../src/index.js";
import { openMysqlTarget, type MysqlTarget } from "../mysql/mysql-target.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";
import { waitForStatement } from "../support/processlist.js";
import { mustGrant } from "./rw-lock-store-conformance.js";

let target: MysqlTarget;
let store: MysqlRwLockStore;

beforeAll(async () => {
  target = await openMysqlTarget();
  store = await MysqlRwLockStore.open({
    connection: target.db.url,
    epochSource: target.epochSource,
  });
});

afterAll(async () => {
  await store?.close();
  await target?.close();
});

async function count(table: string, resource: string): Promise<number> {
  const [rows] = await target.admin.query<RowDataPacket[]>(
    `SELECT COUNT(*) AS n FROM ${table} WHERE resource = ?`,
    [resource],
  );
  return Number(rows[0]!.n);
}

test("the sweeper removes expired grants, lapsed intents and idle key rows, and keeps live ones", async () => {
  const resource = uniqueResource("rw-sweep");
  const expired = mustGrant(
    await store.acquireRead({
      resource,
      businessKey: "expired",
      holder: holder("r"),
      leaseMs: 1_000,
    }),
  );
  await store.acquireWrite({
    resource,
    businessKey: "expired",
    holder: holder("w"),
    leaseMs: 1_000,
    intentMs: 1_000,
  });
  const live = mustGrant(
    await store.acquireRead({
      resource,
      businessKey: "live",
      holder: holder("r"),
      leaseMs: 30_000,
    }),
  );
  await store.acquireWrite({
    resource,
    businessKey: "live",
    holder: holder("w"),
    leaseMs: 1_000,
    intentMs: 30_000,
  });
  const released = mustGrant(
    await store.acquireWrite({
      resource,
      businessKey: "released",
      holder: holder("w"),
      leaseMs: 30_000,
    }),
  );
  await store.release({ resource, businessKey: "released", lockId: released.lockId });
  expect(await count("mysql_rw_lock", resource)).toBe(3);
  await sleep(1_200);

  const sweeper = new MysqlRwSweeper(target.admin, { batchSize: 2 });
  const counts = await sweeper.sweep();
  expect(counts.grants).toBeGreaterThanOrEqual(1);
  expect(counts.intents).toBeGreaterThanOrEqual(1);
  expect(counts.keys).toBeGreaterThanOrEqual(2);
  expect(await count("mysql_rw_grant", resource)).toBe(1);
  expect(await count("mysql_rw_intent", resource)).toBe(1);
  expect(await count("mysql_rw_lock", resource)).toBe(1);
  const seen = await store.inspect({ resource, businessKey: "live" });
  expect(seen?.readers.map((g) => g.lockId)).toEqual([live.lockId]);
  expect(seen?.waitingWriters).toBe(1);

  // A key whose row was removed starts again with a fence above everything it had.
  const again = mustGrant(
    await store.acquireWrite({
      resource,
      businessKey: "expired",
      holder: holder("w2"),
      leaseMs: 1_000,
    }),
  );
  expect(compareFences(again.fence!, expired.fence!)).toBeGreaterThan(0);
  const after = mustGrant(
    await store.acquireRead({
      resource,
      businessKey: "released",
      holder: holder("r2"),
      leaseMs: 1_000,
    }),
  );
  expect(compareFences(after.fence!, released.fence!)).toBeGreaterThan(0);
  await sweeper.stop();
});

test("the sweeper's delete waits for a decision holding the key's row and keeps the row it left a grant on", async () => {
  const resource = uniqueResource("rw-sweep-race");
  const first = mustGrant(
    await store.acquireWrite({ resource, businessKey: "k", holder: holder("w"), leaseMs: 30_000 }),
  );
  await store.release({ resource, businessKey: "k", lockId: first.lockId });
  // A live grant that expires before the hand-made one below: the sweep of expired grants
  // stops at it, so only the key row's delete can wait for the transaction.
  mustGrant(
    await store.acquireRead({
      resource,
      businessKey: "other",
      holder: holder("r"),
      leaseMs: 10_000,
    }),
  );
  // A decision's transaction, done by hand: it holds the key's row and writes a grant.
  const conn = await target.admin.getConnection();
  const sweeper = new MysqlRwSweeper(target.admin);
  let open = false;
  try {
    await conn.query("START TRANSACTION");
    open = true;
    await conn.query(
      "SELECT last_fence FROM mysql_rw_lock WHERE resource = ? AND business_key = ? FOR UPDATE",
      [resource, "k"],
    );
    await conn.query(
      `INSERT INTO mysql_rw_grant (resource, business_key, lock_id, mode, client_id, owner_id,
         fence, reentry, renewals, granted_at, expires_at)
       VALUES (?, 'k', 'hand-made-grant-000000', 'write', 'c', 'o', 1, 1, 0, NOW(3),
               NOW(3) + INTERVAL 30 SECOND)`,
      [resource],
    );
    // The sweeper lists the key as idle (it cannot see the uncommitted grant); its delete of
    // the key's row waits for the row lock.
    const sweeping = sweeper.sweep();
    await waitForStatement(target.admin, "DELETE k FROM mysql_rw_lock");
    await conn.query("COMMIT");
    open = false;
    expect((await sweeping).keys).toBe(0);
  } finally {
    if (open) await conn.query("ROLLBACK");
    conn.release();
    await sweeper.stop();
  }
  expect(await count("mysql_rw_lock", resource)).toBe(2);
  expect(await count("mysql_rw_grant", resource)).toBe(2);
});

test("the sweeper's options are checked", () => {
  expect(() => new MysqlRwSweeper(target.admin, { batchSize: 0 })).toThrow(InvalidArgumentError);
  expect(() => new MysqlRwSweeper(target.admin, { batchSize: 501 })).toThrow(InvalidArgumentError);
  expect(() => new MysqlRwSweeper(target.admin, { intervalMs: 1.5 })).toThrow(InvalidArgumentError);
});
