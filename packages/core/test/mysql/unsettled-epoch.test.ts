import { afterAll, beforeAll, expect, test } from "vitest";
import { LockUnavailableError } from "../../src/index.js";
import { MemoryEpochSource } from "../support/memory-epoch-source.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openMysqlTarget, type MysqlTarget } from "./mysql-target.js";

let target: MysqlTarget;

beforeAll(async () => {
  // Epochs minted here stay far below the durable one written below, so every attempt of
  // every kind finds "the durable epoch moved on", renews, and finds it again.
  target = await openMysqlTarget({ epochSource: new MemoryEpochSource() });
  await target.admin.query(
    "INSERT INTO fence_epoch (id, epoch, reason) VALUES (1, 1000000, 'test: out of reach')",
  );
});
afterAll(async () => {
  await target?.close();
});

async function rowsOf(table: string, resource: string): Promise<number> {
  const [rows] = await target.admin.query(`SELECT COUNT(*) AS n FROM ${table} WHERE resource = ?`, [
    resource,
  ]);
  return Number((rows as Array<{ n: number | string }>)[0]?.n);
}

const unsettled: unknown = expect.objectContaining({
  constructor: LockUnavailableError,
  reason: "fencing-epoch",
});

// Every kind refuses alike when renewing the tier's epoch never catches up with the durable
// one: the reason is `fencing-epoch` (no fence may be minted), not a store that is down, and
// nothing is granted.
test("a mutex, a semaphore and a read-write lock refuse with 'fencing-epoch' and grant nothing", async () => {
  const { semaphores, rw } = await target.openCoordination();
  const resource = uniqueResource();
  const lease = { businessKey: "k", holder: holder(), leaseMs: 5_000 };
  await expect(target.store.acquire({ resource, ...lease })).rejects.toEqual(unsettled);
  await expect(semaphores.acquire({ resource, ...lease, totalPermits: 2 })).rejects.toEqual(
    unsettled,
  );
  await expect(rw.acquireRead({ resource, ...lease })).rejects.toEqual(unsettled);
  await expect(rw.acquireWrite({ resource, ...lease })).rejects.toEqual(unsettled);
  expect(await rowsOf("mysql_lock", resource)).toBe(0);
  expect(await rowsOf("mysql_semaphore_permit", resource)).toBe(0);
  expect(await rowsOf("mysql_rw_grant", resource)).toBe(0);
});
