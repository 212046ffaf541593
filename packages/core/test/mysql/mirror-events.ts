import type { Pool } from "mysql2/promise";
import type { StoreEvent } from "../../src/events/store-event.js";
import { holder } from "../support/ids.js";

// Redis store events of made-up leases, and the mirror row of a key, for the lease mirror's
// tests.

export const lockIdOf = (key: string, lease = 1) => `L${key}${lease}`.padEnd(22, "x");

export interface Lease {
  readonly resource: string;
  readonly businessKey: string;
  /** Which lease on the key (a new grant is a new lease). */
  readonly lease?: number;
  readonly fence?: string;
}

/** What every event of a lease on the Redis tier carries. */
function factsOf(lease: Lease, at: number) {
  return {
    tier: "redis" as const,
    resource: lease.resource,
    businessKey: lease.businessKey,
    at,
    lockId: lockIdOf(lease.businessKey, lease.lease),
    fence: lease.fence ?? "7",
    holder: holder(),
    grantedAt: at,
  };
}

export function grant(lease: Lease, leaseMs: number, at = Date.now()): StoreEvent {
  return { type: "grant", ...factsOf(lease, at), leaseMs, reentry: 1, renewals: 0 };
}

export function extend(lease: Lease, leaseMs: number): StoreEvent {
  const at = Date.now();
  return { type: "extend", ...factsOf(lease, at), leaseMs, expiresAt: at + leaseMs, renewals: 1 };
}

export function release(lease: Lease): StoreEvent {
  return {
    type: "release",
    ...factsOf(lease, Date.now()),
    renewals: 0,
    released: true,
    reentry: 0,
  };
}

/** The key's row in `redis_lease_mirror`, or null. */
export async function mirrorRowOf(
  pool: Pool,
  resource: string,
  businessKey: string,
): Promise<{ lockId: string; fence: string; expiresAtMs: number } | null> {
  const [rows] = await pool.query(
    `SELECT lock_id AS lockId, CAST(fence AS CHAR) AS fence,
            UNIX_TIMESTAMP(expires_at) * 1000 AS ms
       FROM redis_lease_mirror WHERE resource = ? AND business_key = ?`,
    [resource, businessKey],
  );
  const row = (rows as { lockId: string; fence: string; ms: string }[])[0];
  return row ? { lockId: row.lockId, fence: row.fence, expiresAtMs: Number(row.ms) } : null;
}

/** The real pool, counting the statements sent through it. */
export function countingPool(pool: Pool): { pool: Pool; statements: () => number } {
  let statements = 0;
  const counted = new Proxy(pool, {
    get(real, property, receiver) {
      if (property !== "query") return Reflect.get(real, property, receiver) as unknown;
      return (sql: string, values: unknown[]): Promise<unknown> => {
        statements += 1;
        return real.query(sql, values);
      };
    },
  });
  return { pool: counted, statements: () => statements };
}
