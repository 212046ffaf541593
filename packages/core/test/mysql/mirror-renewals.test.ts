import { afterAll, beforeAll, expect, it } from "vitest";
import type { StoreEvent } from "../../src/events/store-event.js";
import { LeaseMirror } from "../../src/tier/lease-mirror.js";
import { holder, uniqueResource } from "../support/ids.js";
import { countingPool } from "./mirror-events.js";
import { openMysqlTarget, type MysqlTarget } from "./mysql-target.js";

// The lease mirror writes a flush's renewals in one statement (docs/decisions/0201), never over
// a later lease's row, and writes the row of a lease whose grant it never wrote
// (docs/decisions/0221), against a real MariaDB.

let target: MysqlTarget;

beforeAll(async () => {
  target = await openMysqlTarget();
});
afterAll(async () => {
  await target.close();
});

const lockIdOf = (key: string) => `L${key}`.padEnd(22, "x");
const ROWS = `SELECT business_key AS k, lock_id AS l, CAST(fence AS CHAR) AS f,
                     UNIX_TIMESTAMP(expires_at) * 1000 AS ms
                FROM redis_lease_mirror WHERE resource = ? ORDER BY business_key`;

it("writes a flush's renewals in one statement, never over a later lease's row", async () => {
  const resource = uniqueResource();
  const counted = countingPool(target.admin);
  const mirror = new LeaseMirror(counted.pool, { clockMarginMs: 0 });
  const at = Date.now();
  const event = (type: "grant" | "extend", businessKey: string, leaseMs: number): StoreEvent => {
    const lease = {
      tier: "redis" as const,
      resource,
      businessKey,
      at,
      lockId: lockIdOf(businessKey),
      fence: "7",
      holder: holder(),
      leaseMs,
      grantedAt: at,
    };
    return type === "grant"
      ? { ...lease, type, reentry: 1, renewals: 0 }
      : { ...lease, type, expiresAt: at + leaseMs, renewals: 1 };
  };
  for (const key of ["a", "b", "c", "taken"]) mirror.record(event("grant", key, 10_000));
  await mirror.flush();
  // "taken" now belongs to the key's next lease (fence 8), which another instance granted and
  // mirrored: its row must stay.
  await target.admin.query(
    "UPDATE redis_lease_mirror SET lock_id = ?, fence = 8 WHERE resource = ? AND business_key = 'taken'",
    [lockIdOf("other"), resource],
  );

  const before = counted.statements();
  for (const key of ["a", "b", "c", "taken", "never-mirrored"]) {
    mirror.record(event("extend", key, 60_000));
  }
  await mirror.flush();
  expect(counted.statements() - before).toBe(1);

  const [rows] = await target.admin.query(ROWS, [resource]);
  const byKey = new Map(
    (rows as { k: string; l: string; f: string; ms: string }[]).map((r) => [
      r.k,
      { l: r.l, f: r.f, ms: Number(r.ms) },
    ]),
  );
  // A lease whose grant this mirror never wrote (granted through an instance that stopped
  // before its batch, or given up) gets its row from the renewal.
  expect([...byKey.keys()]).toEqual(["a", "b", "c", "never-mirrored", "taken"]);
  for (const key of ["a", "b", "c", "never-mirrored"]) {
    expect(byKey.get(key)?.ms).toBeCloseTo(at + 60_000, -1);
    expect(byKey.get(key)?.f).toBe("7");
    expect(byKey.get(key)?.l).toBe(lockIdOf(key));
  }
  expect(byKey.get("taken")).toEqual({ l: lockIdOf("other"), f: "8", ms: at + 10_000 });
  await mirror.close();
});
