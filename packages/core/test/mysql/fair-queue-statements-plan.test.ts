import type { PoolConnection } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACQUIRE_LOCK_FAIR, ACQUIRE_LOCK_FAIR_DELAYED } from "../../src/mysql/sql/acquire-lock.js";
import { EXTEND_LOCK } from "../../src/mysql/sql/extend-lock.js";
import { READ_LEASE, READ_LOCK_DELAY } from "../../src/mysql/sql/read-lease.js";
import { RELEASE_LOCK } from "../../src/mysql/sql/release-lock.js";
import { LEAVE_QUEUE, READ_QUEUE, SWEEP_DEAD_WAITERS } from "../../src/mysql/sql/waiters.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openMysqlTarget, type MysqlTarget } from "./mysql-target.js";
import { PLAN_STATES, fillOtherKeys, nth, type PlanRow } from "./plan-support.js";

/** `SET @a = (…), @b = (…)` as a SELECT of the same subqueries: EXPLAIN takes no SET. */
function setAsSelect(sql: string): string {
  return sql.replace(/^SET @\w+ =/, "SELECT").replace(/,\s*@\w+ =/g, ",");
}

/** What one statement must be planned through: [table, index] per table read, by select id. */
interface Expected {
  readonly reads: readonly (readonly [table: string, index: string])[];
  /** The sweep may walk its whole index (in order, when nearly every row has ended). */
  readonly sweep?: boolean;
}

const LOCK = "mysql_lock_resource_business_key_key";
const WAITERS = "mysql_lock_waiter_resource_business_key_id_idx";
const WAITER = "mysql_lock_waiter_resource_business_key_waiter_id_key";

describe.each(PLAN_STATES)(
  "MySQL tier, mutex fair queue, %s: statements on one key use its index",
  (_state, otherExpiry) => {
    let target: MysqlTarget;
    let conn: PoolConnection;
    const resource = uniqueResource("plan");
    const key = "live";
    const owner = holder("owner");
    const waiterId = "waiter-1";

    beforeAll(async () => {
      target = await openMysqlTarget();
      const fill = (sql: string) => fillOtherKeys(target, resource, sql);
      await fill(`INSERT INTO mysql_lock (resource, business_key, lock_id, client_id, owner_id,
          fence, reentry, granted_at, expires_at)
        SELECT ?, CONCAT('other-', seq), 'other-lock-id-00000000', 'c', 'o', seq, 1,
               NOW(3) - INTERVAL 2 HOUR, ${otherExpiry}`);
      await fill(`INSERT INTO mysql_lock_waiter (resource, business_key, waiter_id, deadline)
        SELECT ?, CONCAT('other-', seq), 'w', ${otherExpiry}`);

      // The key: a live lease and one fair waiter refused behind it (its place kept). A
      // neighbour whose lease was force-released during its lock-delay.
      const grant = await target.store.acquire({
        resource,
        businessKey: key,
        holder: owner,
        leaseMs: 60_000,
      });
      if (!grant.granted) throw new Error("the live lease was not granted");
      const queued = await target.store.acquire({
        resource,
        businessKey: key,
        holder: holder("waiter"),
        leaseMs: 60_000,
        fair: { waiterId, heartbeatMs: 60_000 },
      });
      if (queued.granted) throw new Error("the waiter was granted beside the holder");
      const delayed = await target.store.acquire({
        resource,
        businessKey: "delayed",
        holder: owner,
        leaseMs: 60_000,
        lockDelayMs: 60_000,
      });
      if (!delayed.granted) throw new Error("the delayed lease was not granted");
      await target.store.forceRelease({ resource, businessKey: "delayed" });
      await target.admin.query("ANALYZE TABLE mysql_lock, mysql_lock_waiter");

      // The fair acquire's later statements read session variables its earlier ones set.
      conn = await target.admin.getConnection();
      await conn.query("SET @warden_ahead = 0, @warden_mine = 0, @warden_granted = 1");
    });
    afterAll(async () => {
      conn?.release();
      await target?.close();
    });

    const k = (): string[] => [resource, key];
    const ahead = (place: string) => () => [
      ...[...k(), ...k(), place],
      ...[...k(), owner.clientId, owner.ownerId],
    ];
    const fair = (label: string, sql: string) =>
      [
        [
          `${label}: purge dead waiters`,
          nth(sql, 0),
          k,
          { reads: [["mysql_lock_waiter", WAITERS]] },
        ],
        [
          `${label}: ahead and mine, with a place`,
          setAsSelect(nth(sql, 2)),
          ahead(waiterId),
          {
            reads: [
              ["mysql_lock_waiter", WAITERS],
              ["mysql_lock_waiter", WAITER],
              ["mysql_lock", LOCK],
            ],
          },
        ],
        [
          `${label}: ahead and mine, without a place`,
          setAsSelect(nth(sql, 2)),
          ahead(""),
          {
            reads: [
              ["mysql_lock_waiter", WAITERS],
              ["mysql_lock", LOCK],
            ],
          },
        ],
        [
          `${label}: use up the place`,
          nth(sql, 5),
          () => [...k(), waiterId],
          { reads: [["mysql_lock_waiter", WAITER]] },
        ],
        [`${label}: report`, nth(sql, 6), k, { reads: [["mysql_lock", LOCK]] }],
      ] as const;
    const statements: (readonly [
      name: string,
      sql: string,
      params: () => unknown[],
      expected: Expected,
    ])[] = [
      // The fair acquire (acquire-lock.ts); its enqueue reads no table and its decision is
      // the upsert of the plain acquire.
      ...fair("fair acquire", ACQUIRE_LOCK_FAIR),
      ...fair("fair acquire with lock-delay", ACQUIRE_LOCK_FAIR_DELAYED),

      // Waiters (waiters.ts).
      [
        "leave the queue",
        LEAVE_QUEUE,
        () => [...k(), waiterId],
        { reads: [["mysql_lock_waiter", WAITER]] },
      ],
      [
        "read the queue",
        READ_QUEUE,
        () => [...k(), 100],
        { reads: [["mysql_lock_waiter", WAITERS]] },
      ],
      [
        "sweep dead waiters",
        SWEEP_DEAD_WAITERS,
        () => [60_000, 500],
        { reads: [["mysql_lock_waiter", "mysql_lock_waiter_deadline_idx"]], sweep: true },
      ],

      // The other reads of one key's mysql_lock row (the UPDATEs before them are in
      // key-statements-plan.test.ts).
      ["read lease", READ_LEASE, k, { reads: [["mysql_lock", LOCK]] }],
      [
        "read lock-delay",
        READ_LOCK_DELAY,
        () => [resource, "delayed"],
        { reads: [["mysql_lock", LOCK]] },
      ],
      ["release: report", nth(RELEASE_LOCK, 1), k, { reads: [["mysql_lock", LOCK]] }],
      ["extend: report", nth(EXTEND_LOCK, 1), k, { reads: [["mysql_lock", LOCK]] }],
    ];

    it.each(statements)("%s", async (_name, sql, params, expected) => {
      const [rows] = await conn.query<PlanRow[]>(`EXPLAIN ${sql}`, params());
      const tables = new Set(expected.reads.map(([table]) => table));
      const plans = rows
        .filter((row) => row.table !== null && tables.has(row.table))
        .sort((a, b) => (a.id ?? 0) - (b.id ?? 0));
      // With a rowid filter EXPLAIN names the access index, then the filter's: "a|b".
      expect(plans.map((row) => [row.table, row.key?.split("|")[0] ?? null])).toEqual(
        expected.reads,
      );
      for (const row of plans) {
        // ALL reads the whole table; index walks a whole index (a sweep may, in order).
        const type = row.type?.split("|")[0];
        expect(type).not.toBe("ALL");
        if (!expected.sweep) expect(type).not.toBe("index");
      }
    });
  },
);
