import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { holder, uniqueResource } from "../support/ids.js";
import { openMysqlTarget, type MysqlTarget } from "./mysql-target.js";

// docs/design.md#tiers-and-switching: MySQL must not grant a key whose Redis lease it knows to be
// live.
describe("MySQL tier and the Redis lease mirror", () => {
  let target: MysqlTarget;

  beforeAll(async () => {
    target = await openMysqlTarget();
  });
  afterAll(async () => {
    await target.close();
  });

  async function mirror(resource: string, businessKey: string, expiresInMs: number): Promise<void> {
    await target.admin.query(
      `INSERT INTO redis_lease_mirror (resource, business_key, lock_id, fence, expires_at)
       VALUES (?, ?, 'RRRRRRRRRRRRRRRRRRRRRR', 42, NOW(3) + INTERVAL ? * 1000 MICROSECOND)`,
      [resource, businessKey, expiresInMs],
    );
  }

  it("refuses a key with a live mirrored Redis lease and names it", async () => {
    const resource = uniqueResource();
    await mirror(resource, "k", 5_000);
    const result = await target.store.acquire({
      resource,
      businessKey: "k",
      holder: holder(),
      leaseMs: 1_000,
    });
    expect(result.granted).toBe(false);
    if (result.granted) return;
    expect(result.holder).toEqual({
      clientId: "redis-lease-mirror",
      ownerId: "RRRRRRRRRRRRRRRRRRRRRR",
    });
    expect(result.ttlMs).toBeGreaterThan(3_000);
    expect(await target.store.inspect({ resource, businessKey: "k" })).toBeNull();
  });

  it("compares mirrored keys byte for byte", async () => {
    const resource = uniqueResource();
    await mirror(resource, "abc", 5_000);
    const other = await target.store.acquire({
      resource,
      businessKey: "ABC",
      holder: holder(),
      leaseMs: 1_000,
    });
    expect(other.granted).toBe(true);
  });

  it("grants once the mirrored lease has expired", async () => {
    const resource = uniqueResource();
    await mirror(resource, "k", -1_000);
    const result = await target.store.acquire({
      resource,
      businessKey: "k",
      holder: holder(),
      leaseMs: 1_000,
    });
    expect(result.granted).toBe(true);
  });
});
