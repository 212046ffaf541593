import type { RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  LockUnavailableError,
  type LockStore,
  type MysqlRwLockStore,
  type MysqlSemaphoreStore,
} from "../../src/index.js";
import { deadlockEveryAttempt, type DeadlockTrap } from "../support/deadlock-trap.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openMysqlTarget, type MysqlTarget } from "./mysql-target.js";

// A call InnoDB picks as the deadlock victim on every attempt it is allowed is refused with
// reason `contended` (the key was too busy to decide, MySQL answered), not
// `store-unavailable` (MySQL failed). The deadlocks are real lock cycles on MariaDB between
// the store's call and a test transaction (support/deadlock-trap.ts).

// One attempt per statement, so one deadlock exhausts them; the semaphore's acquire gets
// two more (mysql-semaphore-store.ts), the read-write lock's calls four (mysql-rw-lock-store.ts).
const DEADLOCK_ATTEMPTS = 1;
const SEMAPHORE_ACQUIRE_ATTEMPTS = DEADLOCK_ATTEMPTS + 2;
const RW_ATTEMPTS = 4;

let target: MysqlTarget;
let mutex: LockStore;
let semaphores: MysqlSemaphoreStore;
let rw: MysqlRwLockStore;

beforeAll(async () => {
  target = await openMysqlTarget({ deadlockAttempts: DEADLOCK_ATTEMPTS });
  mutex = target.store;
  ({ semaphores, rw } = await target.openCoordination());
});

afterAll(async () => {
  await target?.close();
});

async function idOf(table: string, where: string, values: string[]): Promise<number> {
  const [rows] = await target.admin.query<RowDataPacket[]>(
    `SELECT id FROM ${table} WHERE ${where}`,
    values,
  );
  if (!rows[0]) throw new Error(`no row in ${table}`);
  return Number(rows[0].id);
}

function expectContended(outcome: PromiseSettledResult<unknown>): void {
  expect(outcome.status).toBe("rejected");
  const error = (outcome as PromiseRejectedResult).reason as unknown;
  expect(error).toBeInstanceOf(LockUnavailableError);
  expect(error).toMatchObject({ reason: "contended", retryAfterMs: 10 });
  expect((error as Error).message).toMatch(/deadlock|contended/);
}

function run<T>(rounds: number, trap: DeadlockTrap, call: () => Promise<T>) {
  return deadlockEveryAttempt(target.db.url, target.admin, rounds, trap, call);
}

describe("a MySQL-tier call that deadlocks on every attempt is refused as contended", () => {
  it("mutex release: the lease stays held, and a later release succeeds", async () => {
    const resource = uniqueResource("contended-release");
    const key = { resource, businessKey: "k" };
    const grant = await mutex.acquire({ ...key, holder: holder(), leaseMs: 30_000 });
    if (!grant.granted) throw new Error("expected a grant");
    const id = await idOf("mysql_lock", "resource = ? AND business_key = ?", [resource, "k"]);
    // The release's UPDATE locks the key's index entry, then the row, which the test holds.
    const outcome = await run(
      DEADLOCK_ATTEMPTS,
      {
        hold: (conn) =>
          conn.query("SELECT id FROM mysql_lock WHERE id = ? LOCK IN SHARE MODE", [id]),
        close: (conn) =>
          conn.query(
            `SELECT id FROM mysql_lock FORCE INDEX (mysql_lock_resource_business_key_key)
              WHERE resource = ? AND business_key = ? FOR UPDATE`,
            [resource, "k"],
          ),
        blocked: ["UPDATE mysql_lock"],
      },
      () => mutex.release({ ...key, lockId: grant.lockId }),
    );
    expectContended(outcome);
    expect(await mutex.inspect(key)).toMatchObject({ lockId: grant.lockId });
    expect(await mutex.release({ ...key, lockId: grant.lockId })).toMatchObject({ released: true });
  });

  it("semaphore acquire: nothing is granted, and a later acquire is", async () => {
    const resource = uniqueResource("contended-permit");
    const request = {
      resource,
      businessKey: "k",
      holder: holder(),
      leaseMs: 30_000,
      totalPermits: 2,
    };
    // Each attempt's transaction locks the key's row, then inserts the permit into the key's
    // range of the permits' index, where the test holds a gap lock (or waits there in the
    // DELETE of expired permits, when a next key's entry bounds the gap).
    const outcome = await run(
      SEMAPHORE_ACQUIRE_ATTEMPTS,
      {
        hold: (conn) =>
          conn.query(
            `SELECT id FROM mysql_semaphore_permit
                FORCE INDEX (mysql_semaphore_permit_resource_business_key_expires_at_idx)
              WHERE resource = ? AND business_key = ? LOCK IN SHARE MODE`,
            [resource, "k"],
          ),
        close: (conn) =>
          conn.query(
            "SELECT id FROM mysql_semaphore WHERE resource = ? AND business_key = ? FOR UPDATE",
            [resource, "k"],
          ),
        blocked: ["INSERT INTO mysql_semaphore_permit", "DELETE mysql_semaphore_permit"],
      },
      () => semaphores.acquire(request),
    );
    expectContended(outcome);
    expect((await semaphores.inspect({ resource, businessKey: "k" })).holders).toEqual([]);
    expect(await semaphores.acquire(request)).toMatchObject({ granted: true });
  });

  it("semaphore extend: the permit keeps its lease, and a later extend succeeds", async () => {
    const resource = uniqueResource("contended-extend");
    const key = { resource, businessKey: "k" };
    const grant = await semaphores.acquire({
      ...key,
      holder: holder(),
      leaseMs: 30_000,
      totalPermits: 1,
    });
    if (!grant.granted) throw new Error("expected a permit");
    const id = await idOf("mysql_semaphore_permit", "lock_id = ?", [grant.lockId]);
    // The extend's UPDATE locks the permit's lock_id entry, then its row, which the test holds.
    const outcome = await run(
      DEADLOCK_ATTEMPTS,
      {
        hold: (conn) =>
          conn.query("SELECT id FROM mysql_semaphore_permit WHERE id = ? LOCK IN SHARE MODE", [id]),
        close: (conn) =>
          conn.query(
            `SELECT id FROM mysql_semaphore_permit FORCE INDEX (mysql_semaphore_permit_lock_id_key)
              WHERE lock_id = ? FOR UPDATE`,
            [grant.lockId],
          ),
        blocked: ["UPDATE mysql_semaphore_permit"],
      },
      () => semaphores.extend({ ...key, lockId: grant.lockId, leaseMs: 60_000 }),
    );
    expectContended(outcome);
    const [held] = (await semaphores.inspect(key)).holders;
    expect(held).toMatchObject({ lockId: grant.lockId, renewals: 0 });
    expect(
      await semaphores.extend({ ...key, lockId: grant.lockId, leaseMs: 60_000 }),
    ).toMatchObject({ lockId: grant.lockId, renewals: 1 });
  });

  it("read-write acquire: nothing is granted, and a later acquire is", async () => {
    const resource = uniqueResource("contended-rw");
    const request = { resource, businessKey: "k", holder: holder(), leaseMs: 30_000 };
    // Each attempt's transaction locks the key's row, then inserts the grant into the key's
    // range of the grants' index, where the test holds a gap lock.
    const outcome = await run(
      RW_ATTEMPTS,
      {
        hold: (conn) =>
          conn.query(
            `SELECT id FROM mysql_rw_grant FORCE INDEX (mysql_rw_grant_resource_business_key_idx)
              WHERE resource = ? AND business_key = ? LOCK IN SHARE MODE`,
            [resource, "k"],
          ),
        close: (conn) =>
          conn.query(
            "SELECT id FROM mysql_rw_lock WHERE resource = ? AND business_key = ? FOR UPDATE",
            [resource, "k"],
          ),
        blocked: ["INSERT INTO mysql_rw_grant", "DELETE mysql_rw_grant"],
      },
      () => rw.acquireWrite(request),
    );
    expectContended(outcome);
    const view = await rw.inspect({ resource, businessKey: "k" });
    expect(view?.writer ?? null).toBeNull();
    expect(view?.readers ?? []).toEqual([]);
    expect(await rw.acquireWrite(request)).toMatchObject({ granted: true, mode: "write" });
  });

  it("read-write release: the grant stays, and a later release succeeds", async () => {
    const resource = uniqueResource("contended-rw-release");
    const key = { resource, businessKey: "k" };
    const grant = await rw.acquireRead({ ...key, holder: holder(), leaseMs: 30_000 });
    if (!grant.granted) throw new Error("expected a read grant");
    // Each attempt's transaction locks the key's row, then the grant's lock_id entry, which
    // the test holds.
    const outcome = await run(
      RW_ATTEMPTS,
      {
        hold: (conn) =>
          conn.query(
            `SELECT id FROM mysql_rw_grant FORCE INDEX (mysql_rw_grant_lock_id_key)
              WHERE lock_id = ? LOCK IN SHARE MODE`,
            [grant.lockId],
          ),
        close: (conn) =>
          conn.query(
            "SELECT id FROM mysql_rw_lock WHERE resource = ? AND business_key = ? FOR UPDATE",
            [resource, "k"],
          ),
        blocked: ["UPDATE mysql_rw_grant"],
      },
      () => rw.release({ ...key, lockId: grant.lockId }),
    );
    expectContended(outcome);
    expect((await rw.inspect(key))?.readers.map((reader) => reader.lockId)).toEqual([grant.lockId]);
    expect(await rw.release({ ...key, lockId: grant.lockId })).toMatchObject({ released: true });
  });
});
