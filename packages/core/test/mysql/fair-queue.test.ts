import type { RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, expect, test } from "vitest";
import { MysqlLeaseSweeper, type MysqlLockStore } from "../../src/index.js";
import { expectArrivalOrderAcrossStores } from "../support/fair-order.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openMysqlTarget, type MysqlTarget } from "./mysql-target.js";

let target: MysqlTarget;
let second: MysqlLockStore;

beforeAll(async () => {
  target = await openMysqlTarget();
  second = await target.openStore();
});

afterAll(async () => {
  await target?.close();
});

test("the queue lives in the database: waiters arriving through two instances are granted in arrival order", async () => {
  await expectArrivalOrderAcrossStores([target.store, second], uniqueResource());
});

test("the sweeper deletes waiters dead for longer than the retain time, and no live one", async () => {
  const resource = uniqueResource();
  const key = { resource, businessKey: "k" };
  await target.store.acquire({ ...key, holder: holder("h"), leaseMs: 10_000 });
  for (const id of ["dead", "live"]) {
    await second.acquire({
      ...key,
      holder: holder(id),
      leaseMs: 10_000,
      fair: { waiterId: id, heartbeatMs: 10_000 },
    });
  }
  await target.admin.query(
    "UPDATE mysql_lock_waiter SET deadline = NOW(3) - INTERVAL 1 HOUR WHERE waiter_id = 'dead'",
  );
  await new MysqlLeaseSweeper(target.admin).sweep();
  const [rows] = await target.admin.query<RowDataPacket[]>(
    "SELECT waiter_id FROM mysql_lock_waiter WHERE resource = ?",
    [resource],
  );
  expect(rows.map((r) => r.waiter_id as string)).toEqual(["live"]);
});
