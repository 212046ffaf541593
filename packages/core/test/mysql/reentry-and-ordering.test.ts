import type { RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotHolderError, type Grant } from "../../src/index.js";
import { holder, sleep, uniqueResource } from "../support/ids.js";
import { openMysqlTarget, type MysqlTarget } from "./mysql-target.js";

// MariaDB applies ON DUPLICATE KEY UPDATE assignments left to right; these tests would
// fail if a condition saw a column already rewritten by an earlier assignment.
describe("MySQL acquire statement: re-entry, takeover and refusal", () => {
  let target: MysqlTarget;

  beforeAll(async () => {
    target = await openMysqlTarget();
  });
  afterAll(async () => {
    await target.close();
  });

  async function row(resource: string): Promise<RowDataPacket | undefined> {
    const [rows] = await target.admin.query<RowDataPacket[]>(
      "SELECT *, CAST(fence AS CHAR) AS fence_text FROM mysql_lock WHERE resource = ? AND business_key = 'k'",
      [resource],
    );
    return rows[0];
  }

  function grant(result: Awaited<ReturnType<MysqlTarget["store"]["acquire"]>>): Grant {
    if (!result.granted) throw new Error("expected a grant");
    return result;
  }

  it("re-entry counts up, keeps lockId and fence, and never shortens the lease", async () => {
    const resource = uniqueResource();
    const me = holder("task");
    const first = grant(
      await target.store.acquire({ resource, businessKey: "k", holder: me, leaseMs: 8_000 }),
    );
    const second = grant(
      await target.store.acquire({ resource, businessKey: "k", holder: me, leaseMs: 500 }),
    );
    const third = grant(
      await target.store.acquire({ resource, businessKey: "k", holder: me, leaseMs: 500 }),
    );
    expect([second.reentry, third.reentry]).toEqual([2, 3]);
    expect(third.reentered).toBe(true);
    expect(third.lockId).toBe(first.lockId);
    expect(third.fence).toBe(first.fence);
    expect(third.expiresAt).toBe(first.expiresAt);
    expect((await row(resource))?.reentry).toBe(3);
  });

  it("re-entry with a longer lease extends it", async () => {
    const resource = uniqueResource();
    const me = holder("task");
    grant(await target.store.acquire({ resource, businessKey: "k", holder: me, leaseMs: 1_000 }));
    const again = grant(
      await target.store.acquire({ resource, businessKey: "k", holder: me, leaseMs: 9_000 }),
    );
    expect(again.ttlMs).toBeGreaterThan(8_000);
  });

  it("a takeover rewrites every column for the new holder", async () => {
    const resource = uniqueResource();
    const old = grant(
      await target.store.acquire({
        resource,
        businessKey: "k",
        holder: holder("a", "client-a"),
        leaseMs: 100,
      }),
    );
    await sleep(150);
    const fresh = grant(
      await target.store.acquire({
        resource,
        businessKey: "k",
        holder: holder("b", "client-b"),
        leaseMs: 7_000,
      }),
    );
    const stored = await row(resource);
    expect(stored).toMatchObject({
      client_id: "client-b",
      owner_id: "b",
      lock_id: fresh.lockId,
      reentry: 1,
    });
    expect(fresh.lockId).not.toBe(old.lockId);
    expect(fresh.reentered).toBe(false);
    expect(fresh.ttlMs).toBeGreaterThan(6_000);
    expect(BigInt(String(stored?.fence_text))).toBeGreaterThan(BigInt(old.fence!));
  });

  it("a refusal changes nothing in the row", async () => {
    const resource = uniqueResource();
    grant(
      await target.store.acquire({
        resource,
        businessKey: "k",
        holder: holder("a"),
        leaseMs: 10_000,
      }),
    );
    const before = await row(resource);
    const refused = await target.store.acquire({
      resource,
      businessKey: "k",
      holder: holder("b"),
      leaseMs: 60_000,
    });
    expect(refused.granted).toBe(false);
    expect(await row(resource)).toEqual(before);
  });

  it("release and extend by the wrong lockId throw NotHolderError and change nothing", async () => {
    const resource = uniqueResource();
    const key = { resource, businessKey: "k" };
    grant(await target.store.acquire({ ...key, holder: holder("a"), leaseMs: 10_000 }));
    const before = await row(resource);
    const wrong = "BBBBBBBBBBBBBBBBBBBBBB";
    const released = await target.store.release({ ...key, lockId: wrong }).catch((e: unknown) => e);
    expect(released).toBeInstanceOf(NotHolderError);
    expect((released as NotHolderError).reason).toBe("other-holder");
    await expect(
      target.store.extend({ ...key, lockId: wrong, leaseMs: 50_000 }),
    ).rejects.toBeInstanceOf(NotHolderError);
    expect(await row(resource)).toEqual(before);
  });

  it("release of a re-entered lock decrements, and the last one frees the key", async () => {
    const resource = uniqueResource();
    const key = { resource, businessKey: "k" };
    const me = holder("task");
    const first = grant(await target.store.acquire({ ...key, holder: me, leaseMs: 10_000 }));
    grant(await target.store.acquire({ ...key, holder: me, leaseMs: 10_000 }));
    expect(await target.store.release({ ...key, lockId: first.lockId })).toMatchObject({
      released: false,
      reentry: 1,
    });
    expect((await target.store.inspect(key))?.ttlMs).toBeGreaterThan(9_000);
    expect(await target.store.release({ ...key, lockId: first.lockId })).toMatchObject({
      released: true,
      reentry: 0,
    });
    expect(await target.store.inspect(key)).toBeNull();
    expect(
      grant(await target.store.acquire({ ...key, holder: holder("next"), leaseMs: 1_000 })).reentry,
    ).toBe(1);
  });
});
