import type { RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MysqlRwLockStore } from "../../src/index.js";
import {
  RW_DELETE_IDLE_KEY,
  RW_EXTEND,
  RW_FIND_IDLE_KEYS,
  RW_FORCE_RELEASE,
  RW_INSERT_GRANT,
  RW_INSPECT,
  RW_LOCK_AND_READ,
  RW_LIST_KEYS,
  RW_LOCK_KEY,
  RW_REENTER,
  RW_RELEASE,
  RW_SWEEP_GRANTS,
  RW_SWEEP_INTENTS,
  RW_WITHDRAW_INTENT,
} from "../../src/mysql/rw/rw-sql.js";
import { MysqlSemaphoreStore } from "../../src/mysql/semaphore/mysql-semaphore-store.js";
import {
  COUNT_AHEAD,
  DELETE_IDLE_KEY,
  DEQUEUE,
  EXTEND_PERMIT,
  FIND_IDLE_KEYS,
  FORCE_RELEASE_ALL,
  FORCE_RELEASE_ONE,
  INSERT_PERMIT,
  LIST_KEYS,
  LIVE_PERMITS,
  LIVE_PERMITS_LOCKED,
  LOCK_KEY,
  PURGE_WAITERS,
  READ_PERMIT,
  READ_TOTAL,
  RECLAIM_EXPIRED,
  RECORD_GRANT,
  RELEASE_PERMIT,
  REMOVE_UNCERTAIN,
  SWEEP_PERMITS,
} from "../../src/mysql/semaphore/semaphore-sql.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openMysqlTarget, type MysqlTarget } from "./mysql-target.js";
import { PLAN_STATES, fillOtherKeys, nth, type PlanRow } from "./plan-support.js";

/**
 * What one statement must be planned through: per table, the index; `sweep` may walk it.
 * A statement that reads one table twice (a subquery) lists every read in `reads`, in the
 * order of EXPLAIN's ids.
 */
interface Expected {
  readonly keys: Readonly<Record<string, string>>;
  readonly reads?: readonly (readonly [table: string, index: string])[];
  readonly sweep?: boolean;
}

const RW_LOCK = "mysql_rw_lock_resource_business_key_key";
const RW_GRANTS = "mysql_rw_grant_resource_business_key_idx";
const RW_GRANT = "mysql_rw_grant_lock_id_key";
const RW_INTENTS = "mysql_rw_intent_resource_business_key_client_id_owner_id_key";
const SEMAPHORE = "mysql_semaphore_resource_business_key_key";
const PERMITS = "mysql_semaphore_permit_resource_business_key_expires_at_idx";
const PERMIT = "mysql_semaphore_permit_lock_id_key";
const WAITERS = "mysql_lock_waiter_resource_business_key_id_idx";
const WAITER = "mysql_lock_waiter_resource_business_key_waiter_id_key";

describe.each(PLAN_STATES)(
  "MySQL tier, read-write locks and semaphores, %s: statements on one key use its index",
  (_state, otherExpiry) => {
    let target: MysqlTarget;
    let rw: MysqlRwLockStore;
    let semaphore: MysqlSemaphoreStore;
    const resource = uniqueResource("plan");
    const key = "live";
    const reader = holder("reader");
    const writer = holder("writer");
    const waiterId = "waiter-1";
    let grantId: string;
    let permitId: string;
    let rwKeyId: string;
    let semaphoreKeyId: string;

    beforeAll(async () => {
      target = await openMysqlTarget();
      const options = { connection: target.db.url, epochSource: target.epochSource };
      rw = await MysqlRwLockStore.open(options);
      semaphore = await MysqlSemaphoreStore.open(options);
      const fill = (sql: string) => fillOtherKeys(target, resource, sql);
      await fill(`INSERT INTO mysql_rw_lock (resource, business_key, read_fence, last_fence)
        SELECT ?, CONCAT('other-', seq), NULL, seq`);
      await fill(`INSERT INTO mysql_rw_grant (resource, business_key, lock_id, mode, client_id,
          owner_id, fence, reentry, granted_at, expires_at)
        SELECT ?, CONCAT('other-', seq), LPAD(seq, 22, 'g'), 'read', 'c', 'o', seq, 1,
               NOW(3) - INTERVAL 2 HOUR, ${otherExpiry}`);
      await fill(`INSERT INTO mysql_rw_intent (resource, business_key, client_id, owner_id, deadline)
        SELECT ?, CONCAT('other-', seq), 'c', 'o', ${otherExpiry}`);
      await fill(`INSERT INTO mysql_semaphore (resource, business_key, last_fence, total_permits)
        SELECT ?, CONCAT('other-', seq), seq, 1`);
      await fill(`INSERT INTO mysql_semaphore_permit (resource, business_key, lock_id, client_id,
          owner_id, permits, fence, granted_at, expires_at)
        SELECT ?, CONCAT('other-', seq), LPAD(seq, 22, 'p'), 'c', 'o', 1, seq,
               NOW(3) - INTERVAL 2 HOUR, ${otherExpiry}`);
      await fill(`INSERT INTO mysql_lock_waiter (resource, business_key, waiter_id, deadline)
        SELECT ?, CONCAT('other-', seq), 'w', ${otherExpiry}`);
      await fill(`INSERT INTO mysql_lock (resource, business_key, lock_id, client_id, owner_id,
          fence, reentry, granted_at, expires_at)
        SELECT ?, CONCAT('other-', seq), 'other-lock-id-00000000', 'c', 'o', seq, 1,
               NOW(3) - INTERVAL 2 HOUR, ${otherExpiry}`);

      // The key: one live read grant and a writer waiting behind it; one live permit of one
      // and a fair waiter queued behind it; a live mutex lease on a neighbour.
      const read = await rw.acquireRead({
        resource,
        businessKey: key,
        holder: reader,
        leaseMs: 60_000,
      });
      if (!read.granted) throw new Error("the live read grant was not granted");
      grantId = read.lockId;
      const write = await rw.acquireWrite({
        resource,
        businessKey: key,
        holder: writer,
        leaseMs: 60_000,
        intentMs: 60_000,
      });
      if (write.granted) throw new Error("the writer was granted beside a reader");
      const permit = await semaphore.acquire({
        resource,
        businessKey: key,
        holder: reader,
        leaseMs: 60_000,
        totalPermits: 1,
      });
      if (!permit.granted) throw new Error("the live permit was not granted");
      permitId = permit.lockId;
      const queued = await semaphore.acquire({
        resource,
        businessKey: key,
        holder: writer,
        leaseMs: 60_000,
        totalPermits: 1,
        fair: { waiterId, heartbeatMs: 60_000 },
      });
      if (queued.granted) throw new Error("a second permit of one was granted");
      const mutex = await target.store.acquire({
        resource,
        businessKey: "mutex-held",
        holder: holder("m"),
        leaseMs: 60_000,
      });
      if (!mutex.granted) throw new Error("the mutex lease was not granted");
      const [ids] = await target.admin.query<RowDataPacket[]>(
        "SELECT CAST(id AS CHAR) AS id FROM mysql_rw_lock WHERE resource = ? AND business_key = ?",
        [resource, key],
      );
      rwKeyId = String(ids[0]!.id);
      const [semaphoreIds] = await target.admin.query<RowDataPacket[]>(
        "SELECT CAST(id AS CHAR) AS id FROM mysql_semaphore WHERE resource = ? AND business_key = ?",
        [resource, key],
      );
      semaphoreKeyId = String(semaphoreIds[0]!.id);
      await target.admin.query(
        `ANALYZE TABLE mysql_rw_lock, mysql_rw_grant, mysql_rw_intent, mysql_semaphore,
           mysql_semaphore_permit, mysql_lock_waiter, mysql_lock`,
      );
    });
    afterAll(async () => {
      await rw?.close();
      await semaphore?.close();
      await target?.close();
    });

    const k = (): string[] => [resource, key];
    const statements: [name: string, sql: string, params: () => unknown[], expected: Expected][] = [
      // Read-write locks (rw-sql.ts).
      [
        "rw acquire: lock the key",
        nth(RW_LOCK_AND_READ, 1),
        k,
        { keys: { mysql_rw_lock: RW_LOCK } },
      ],
      [
        "rw acquire: reclaim grants",
        nth(RW_LOCK_AND_READ, 2),
        k,
        { keys: { mysql_rw_grant: RW_GRANTS } },
      ],
      [
        "rw acquire: reclaim intents",
        nth(RW_LOCK_AND_READ, 3),
        k,
        { keys: { mysql_rw_intent: RW_INTENTS } },
      ],
      [
        "rw acquire: read grants",
        nth(RW_LOCK_AND_READ, 4),
        k,
        { keys: { mysql_rw_grant: RW_GRANTS } },
      ],
      [
        "rw acquire: read intents",
        nth(RW_LOCK_AND_READ, 5),
        k,
        { keys: { mysql_rw_intent: RW_INTENTS } },
      ],
      [
        "rw acquire: mutex guard",
        nth(RW_LOCK_AND_READ, 6),
        () => [resource, "mutex-held"],
        { keys: { mysql_lock: "mysql_lock_resource_business_key_key" } },
      ],
      [
        "rw grant: move the key's fences",
        nth(RW_INSERT_GRANT, 1),
        () => ["9", "read", "9", resource, key],
        { keys: { mysql_rw_lock: RW_LOCK } },
      ],
      [
        "rw grant: drop the holder's intent",
        nth(RW_INSERT_GRANT, 2),
        () => [resource, key, writer.clientId, writer.ownerId],
        { keys: { mysql_rw_intent: RW_INTENTS } },
      ],
      [
        "rw re-entry",
        nth(RW_REENTER, 0),
        () => [5_000, grantId],
        { keys: { mysql_rw_grant: RW_GRANT } },
      ],
      ["rw lock the key", RW_LOCK_KEY, k, { keys: { mysql_rw_lock: RW_LOCK } }],
      [
        "rw release",
        nth(RW_RELEASE, 0),
        () => [grantId, resource, key],
        { keys: { mysql_rw_grant: RW_GRANT } },
      ],
      [
        "rw release: delete the grant",
        nth(RW_RELEASE, 2),
        () => [grantId],
        { keys: { mysql_rw_grant: RW_GRANT } },
      ],
      [
        "rw extend",
        nth(RW_EXTEND, 0),
        () => [5_000, grantId, resource, key],
        { keys: { mysql_rw_grant: RW_GRANT } },
      ],
      [
        "rw withdraw intent: live?",
        nth(RW_WITHDRAW_INTENT, 0),
        () => [resource, key, writer.clientId, writer.ownerId],
        { keys: { mysql_rw_intent: RW_INTENTS } },
      ],
      [
        "rw withdraw intent: delete",
        nth(RW_WITHDRAW_INTENT, 1),
        () => [resource, key, writer.clientId, writer.ownerId],
        { keys: { mysql_rw_intent: RW_INTENTS } },
      ],
      ["rw inspect: grants", nth(RW_INSPECT, 0), k, { keys: { mysql_rw_grant: RW_GRANTS } }],
      [
        "rw inspect: read fence and intents",
        nth(RW_INSPECT, 1),
        () => [...k(), ...k()],
        { keys: { mysql_rw_lock: RW_LOCK, mysql_rw_intent: RW_INTENTS } },
      ],
      [
        "rw force-release: read all",
        nth(RW_FORCE_RELEASE, 0),
        () => [...k(), "", ""],
        { keys: { mysql_rw_grant: RW_GRANTS } },
      ],
      [
        "rw force-release: read one",
        nth(RW_FORCE_RELEASE, 0),
        () => [...k(), grantId, grantId],
        { keys: { mysql_rw_grant: RW_GRANT } },
      ],
      [
        "rw force-release: delete all",
        nth(RW_FORCE_RELEASE, 1),
        () => [...k(), "", ""],
        { keys: { mysql_rw_grant: RW_GRANTS } },
      ],
      [
        "rw force-release: delete one",
        nth(RW_FORCE_RELEASE, 1),
        () => [...k(), grantId, grantId],
        { keys: { mysql_rw_grant: RW_GRANT } },
      ],
      [
        "rw sweeper: idle key row",
        RW_DELETE_IDLE_KEY,
        () => [rwKeyId],
        { keys: { k: "PRIMARY", g: RW_GRANTS, i: RW_INTENTS } },
      ],
      [
        "rw sweeper: idle keys",
        RW_FIND_IDLE_KEYS,
        () => ["0", 500],
        { keys: { k: "PRIMARY", g: RW_GRANTS, i: RW_INTENTS }, sweep: true },
      ],
      [
        "rw sweeper: expired grants",
        RW_SWEEP_GRANTS,
        () => [500],
        { keys: { mysql_rw_grant: "mysql_rw_grant_expires_at_idx" }, sweep: true },
      ],
      [
        "rw sweeper: lapsed intents",
        RW_SWEEP_INTENTS,
        () => [500],
        { keys: { mysql_rw_intent: "mysql_rw_intent_deadline_idx" }, sweep: true },
      ],

      // Semaphores (semaphore-sql.ts).
      ["semaphore acquire: lock the key", LOCK_KEY, k, { keys: { mysql_semaphore: SEMAPHORE } }],
      [
        "semaphore acquire: reclaim",
        RECLAIM_EXPIRED,
        k,
        { keys: { mysql_semaphore_permit: PERMITS } },
      ],
      [
        "semaphore inspect: live permits",
        LIVE_PERMITS,
        k,
        { keys: { mysql_semaphore_permit: PERMITS } },
      ],
      [
        "semaphore acquire: live permits, locked",
        LIVE_PERMITS_LOCKED,
        k,
        { keys: { mysql_semaphore_permit: PERMITS } },
      ],
      [
        "semaphore acquire: purge waiters",
        PURGE_WAITERS,
        k,
        { keys: { mysql_lock_waiter: WAITERS } },
      ],
      [
        "semaphore acquire: count ahead",
        COUNT_AHEAD,
        () => [...k(), ...k(), waiterId],
        {
          keys: { mysql_lock_waiter: WAITER },
          reads: [
            ["mysql_lock_waiter", WAITERS],
            ["mysql_lock_waiter", WAITER],
          ],
        },
      ],
      [
        "semaphore dequeue",
        DEQUEUE,
        () => [...k(), waiterId],
        { keys: { mysql_lock_waiter: WAITER } },
      ],
      [
        "semaphore acquire: insert the permit",
        INSERT_PERMIT,
        () => [...k(), "newpermit0000000000000", "c", "o", 1, 0, 0, 60_000, ...k()],
        { keys: { s: SEMAPHORE } },
      ],
      [
        "semaphore acquire: record the grant",
        RECORD_GRANT,
        () => [permitId, 1, ...k()],
        { keys: { mysql_semaphore: SEMAPHORE, mysql_semaphore_permit: PERMIT } },
      ],
      [
        "semaphore read permit",
        READ_PERMIT,
        () => [permitId],
        { keys: { mysql_semaphore_permit: PERMIT } },
      ],
      [
        "semaphore release",
        RELEASE_PERMIT,
        () => [permitId, ...k()],
        { keys: { mysql_semaphore_permit: PERMIT } },
      ],
      [
        "semaphore extend",
        nth(EXTEND_PERMIT, 0),
        () => [5_000, permitId, ...k()],
        { keys: { mysql_semaphore_permit: PERMIT } },
      ],
      [
        "semaphore force-release all",
        FORCE_RELEASE_ALL,
        k,
        { keys: { mysql_semaphore_permit: PERMITS } },
      ],
      [
        "semaphore force-release one",
        FORCE_RELEASE_ONE,
        () => [...k(), permitId],
        { keys: { mysql_semaphore_permit: PERMIT } },
      ],
      [
        "semaphore remove uncertain",
        REMOVE_UNCERTAIN,
        () => [permitId],
        { keys: { mysql_semaphore_permit: PERMIT } },
      ],
      ["semaphore total", READ_TOTAL, k, { keys: { mysql_semaphore: SEMAPHORE } }],
      // The sweeper (decision 0218).
      [
        "semaphore sweeper: expired permits",
        SWEEP_PERMITS,
        () => [500],
        { keys: { mysql_semaphore_permit: "mysql_semaphore_permit_expires_at_idx" }, sweep: true },
      ],
      [
        "semaphore sweeper: idle keys",
        FIND_IDLE_KEYS,
        () => ["0", 500],
        { keys: { s: "PRIMARY", p: PERMITS, w: WAITERS }, sweep: true },
      ],
      [
        "semaphore sweeper: idle key row",
        DELETE_IDLE_KEY,
        () => [semaphoreKeyId],
        { keys: { s: "PRIMARY", p: PERMITS, w: WAITERS } },
      ],
      // A resource's keys, a page at a time (holder lists, retirement; decisions 0185, 0217).
      [
        "semaphore list keys",
        LIST_KEYS,
        () => [resource, "", 101],
        { keys: { mysql_semaphore_permit: PERMITS } },
      ],
      [
        "rw list keys",
        RW_LIST_KEYS,
        () => [resource, "", 101],
        { keys: { mysql_rw_grant: RW_GRANTS } },
      ],
    ];

    it.each(statements)("%s", async (_name, sql, params, expected) => {
      const [rows] = await target.admin.query<PlanRow[]>(`EXPLAIN ${sql}`, params());
      const plans = rows
        .filter((row) => row.table !== null && row.table in expected.keys)
        .sort((a, b) => (a.id ?? 0) - (b.id ?? 0));
      // With a rowid filter EXPLAIN names the access index, then the filter's: "a|b".
      const reads = plans.map((row) => [row.table, row.key?.split("|")[0] ?? null]);
      if (expected.reads) expect(reads).toEqual(expected.reads);
      else expect(Object.fromEntries(reads)).toEqual(expected.keys);
      for (const row of plans) {
        // ALL reads the whole table; index walks a whole index (a sweep may, in order).
        const type = row.type?.split("|")[0];
        expect(type).not.toBe("ALL");
        if (!expected.sweep) expect(type).not.toBe("index");
      }
    });
  },
);
