import { createTestDatabase, type TestDatabase } from "@warden/testkit";
import { migrate } from "@warden/db";
import { createPool, type Pool } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeLapsedHolds, insertHoldBatch } from "../src/audit/audit-insert.js";
import { pruneAudit } from "../src/audit/retention.js";
import { holdPart, type HoldPart } from "../src/audit/audit-record.js";
import { createContextInner } from "../src/context.js";
import type { LiveMessage } from "../src/live/live-bus.js";
import { createCaller } from "../src/routers/_app.js";
import { registerResource, startHarness, uid, type Harness } from "./support/harness.js";

async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not true within ${timeoutMs} ms`);
}

describe("hold rows merge their parts in any order, any number of times", () => {
  let db: TestDatabase;
  let pool: Pool;
  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.url);
    pool = createPool({ uri: db.url, connectionLimit: 1, timezone: "Z" });
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
  const lockId = () => `L${uid()}${uid()}${uid()}`.padEnd(22, "x").slice(0, 22);
  const grant = (id: string): HoldPart => ({
    ...holdPart(id, "t1", "res:a", "k1", T0),
    fence: "8589934593",
    clientId: "c1",
    ownerId: "o1",
    tier: "redis",
    leaseMs: 5_000,
    grantedAt: T0,
    expiresAt: T0 + 5_000,
  });
  const renewal = (id: string, at: number, renewals: number): HoldPart => ({
    ...holdPart(id, "t1", "res:a", "k1", at),
    renewals,
    renewedAt: at,
    renewLeaseMs: 5_000,
    expiresAt: at + 5_000,
  });
  const end = (id: string, at: number, endType: HoldPart["endType"]): HoldPart => ({
    ...holdPart(id, "t1", "res:a", "k1", at),
    endedAt: at,
    endType,
  });
  const row = async (id: string) => {
    const [rows] = await pool.query("SELECT * FROM lock_hold WHERE lock_id = ?", [id]);
    return rows as Record<string, unknown>[];
  };

  it("end before grant, replays and stale renewals give the same single row", async () => {
    const id = lockId();
    const parts = [
      end(id, T0 + 9_000, "released"),
      renewal(id, T0 + 4_000, 2),
      grant(id),
      renewal(id, T0 + 2_000, 1),
    ];
    await insertHoldBatch(pool, parts);
    await insertHoldBatch(pool, parts.toReversed());
    const rows = await row(id);
    expect(rows).toHaveLength(1);
    const hold = rows[0]!;
    expect(String(hold.fence)).toBe("8589934593");
    expect(hold.client_id).toBe("c1");
    expect((hold.granted_at as Date).getTime()).toBe(T0);
    expect(hold.renewals).toBe(2);
    expect((hold.renewed_at as Date).getTime()).toBe(T0 + 4_000);
    expect((hold.expires_at as Date).getTime()).toBe(T0 + 9_000);
    expect((hold.ended_at as Date).getTime()).toBe(T0 + 9_000);
    expect(hold.end_type).toBe("released");
  });

  it("a reported end overrides `lapsed`, a later renewal reopens a lapsed hold, the first reported end stays", async () => {
    const id = lockId();
    await insertHoldBatch(pool, [grant(id)]);
    expect(await closeLapsedHolds(pool, T0 + 60_000)).toBeGreaterThanOrEqual(1);
    expect((await row(id))[0]!.end_type).toBe("lapsed");
    // A renewal another instance spooled while MySQL was down arrives late: open again.
    await insertHoldBatch(pool, [renewal(id, T0 + 4_000, 1)]);
    expect((await row(id))[0]!.end_type).toBeNull();
    expect((await row(id))[0]!.ended_at).toBeNull();
    await closeLapsedHolds(pool, T0 + 60_000);
    expect((await row(id))[0]!.end_type).toBe("lapsed");
    await insertHoldBatch(pool, [end(id, T0 + 8_000, "force-released")]);
    await insertHoldBatch(pool, [end(id, T0 + 8_500, "expired")]);
    const hold = (await row(id))[0]!;
    expect(hold.end_type).toBe("force-released");
    expect((hold.ended_at as Date).getTime()).toBe(T0 + 8_000);
  });
});

describe("the audit of the lock path", () => {
  let a: Harness;
  let b: Harness;
  beforeAll(async () => {
    a = await startHarness({ audit: { lapseGraceMs: 200, lapseEveryMs: 100 } });
    b = await startHarness({ shareWith: a, audit: { lapseGraceMs: 200, lapseEveryMs: 100 } });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("a long hold is one row; a release on another instance carries the grant's fence and holder", async () => {
    const tenant = await a.tenant();
    const resource = await registerResource(tenant);
    const key = { resource, businessKey: `long-${uid()}` };
    const viaA = tenant.caller();
    const viaB = createCaller(
      createContextInner(b.services, { apiKey: tenant.key, clientId: "other-client" }),
    );
    const granted = await viaA.lock.acquire({ ...key, ownerId: "w", leaseMs: 10_000 });
    if (!granted.granted) throw new Error("expected a grant");
    // The grant is written (open) before the hold ends: a crash now would still leave it.
    await a.services.audit.flush();
    const open = await a.prisma.lockHold.findUniqueOrThrow({ where: { lockId: granted.lockId } });
    expect(open.endedAt).toBeNull();
    expect(open.fence?.toString()).toBe(granted.fence);
    await viaB.lock.extend({
      ...key,
      lockId: granted.lockId,
      tier: granted.tier,
      leaseMs: 10_000,
    });
    await viaB.lock.release({ ...key, lockId: granted.lockId, tier: granted.tier });
    await b.services.audit.flush();
    expect(await a.prisma.lockHold.count({ where: { resource } })).toBe(1);
    const events = await viaA.event.search({ resource, lockId: granted.lockId });
    expect(events.events.map((e) => e.type)).toEqual(["release", "extend", "grant"]);
    const grantedAt = events.events[2]!.at;
    for (const event of events.events) {
      expect(event.grantedAt).toBe(grantedAt);
      expect(event.fence).toBe(granted.fence);
      expect(event.clientId).toBe(`client-${tenant.id}`);
      expect(event.ownerId).toBe("w");
    }
    // Found by fence and holder too, and pages by cursor across the three.
    const byFence = await viaA.event.search({ resource, fence: granted.fence!, limit: 2 });
    expect(byFence.events).toHaveLength(2);
    const rest = await viaA.event.search({
      resource,
      fence: granted.fence!,
      limit: 2,
      cursor: byFence.cursor!,
    });
    expect([...byFence.events, ...rest.events].map((e) => e.type)).toEqual([
      "release",
      "extend",
      "grant",
    ]);
    expect(rest.cursor).toBeNull();
    const byType = await viaA.event.search({
      resource,
      type: "release",
      clientId: `client-${tenant.id}`,
    });
    expect(byType.events.map((e) => e.lockId)).toEqual([granted.lockId]);
  });

  it("without a shared bus, a release on another instance still carries the grant's facts (from the store)", async () => {
    const tenant = await a.tenant();
    const resource = await registerResource(tenant);
    const key = { resource, businessKey: `facts-${uid()}` };
    const granted = await tenant.caller().lock.acquire({ ...key, ownerId: "w", leaseMs: 10_000 });
    if (!granted.granted) throw new Error("expected a grant");
    const viaB = createCaller(createContextInner(b.services, { apiKey: tenant.key }));
    const seen: LiveMessage[] = [];
    const unsubscribe = b.services.live.subscribe((message) => seen.push(message));
    try {
      await viaB.lock.extend({ ...key, lockId: granted.lockId, tier: granted.tier });
      await viaB.lock.release({ ...key, lockId: granted.lockId, tier: granted.tier });
    } finally {
      unsubscribe();
    }
    const records = seen.flatMap((m) => (m.kind === "event" ? [m.event] : []));
    expect(records.map((r) => r.type)).toEqual(["extend", "release"]);
    for (const record of records) {
      expect(record.grantedAt).toBeGreaterThan(0);
      expect(record).toMatchObject({
        lockId: granted.lockId,
        fence: granted.fence,
        clientId: `client-${tenant.id}`,
        ownerId: "w",
        tenantId: tenant.id,
      });
    }
    // B measured the hold time from the grant time the store kept.
    expect(b.services.stats.holdSummary(resource).samples).toBe(1);
  });

  it("a lease nobody releases is audited as expired (lapsed) with its grant's facts", async () => {
    const tenant = await a.tenant();
    const resource = await registerResource(tenant);
    const key = { resource, businessKey: `lapse-${uid()}` };
    const seen: LiveMessage[] = [];
    const unsubscribe = a.services.live.subscribe((message) => seen.push(message));
    const granted = await tenant.caller().lock.acquire({ ...key, ownerId: "gone", leaseMs: 1_000 });
    if (!granted.granted) throw new Error("expected a grant");
    await eventually(async () => {
      await a.services.audit.flush();
      const hold = await a.prisma.lockHold.findUnique({ where: { lockId: granted.lockId } });
      return hold?.endType === "lapsed";
    }, 15_000);
    const expired = await tenant.caller().event.search({ resource, type: "expired" });
    expect(expired.events).toHaveLength(1);
    expect(expired.events[0]).toMatchObject({
      lockId: granted.lockId,
      fence: granted.fence,
      ownerId: "gone",
    });
    expect(expired.events[0]!.reason).toMatch(/lapsed/);
    // Live subscribers see it too, once the tracker finds the lease lapsed.
    try {
      await eventually(async () =>
        seen.some(
          (m) =>
            m.kind === "event" &&
            m.event.type === "expired" &&
            m.event.lockId === granted.lockId &&
            m.event.fence === granted.fence,
        ),
      );
    } finally {
      unsubscribe();
    }
  });

  it("refusals are one row per resource and minute, with their count", async () => {
    const tenant = await a.tenant();
    const resource = await registerResource(tenant);
    const key = { resource, businessKey: `busy-${uid()}` };
    const caller = tenant.caller();
    const granted = await caller.lock.acquire({ ...key, ownerId: "holder", leaseMs: 20_000 });
    if (!granted.granted) throw new Error("expected a grant");
    for (let i = 0; i < 30; i += 1) {
      const refused = await caller.lock.acquire({ ...key, ownerId: `r${i}`, waitMs: 0 });
      expect(refused.granted).toBe(false);
    }
    await a.services.audit.flush();
    for (let i = 0; i < 20; i += 1) await caller.lock.acquire({ ...key, ownerId: "r", waitMs: 0 });
    await a.services.audit.flush();
    const rows = await a.prisma.lockEvent.findMany({ where: { resource, type: "refusal" } });
    // Two rows only if the run crossed a minute boundary.
    expect(rows.length).toBeLessThanOrEqual(2);
    expect(rows.reduce((sum, row) => sum + (row.count ?? 0), 0)).toBe(50);
    const search = await caller.event.search({ resource, type: "refusal" });
    expect(search.events.reduce((sum, e) => sum + (e.count ?? 0), 0)).toBe(50);
  });

  it("retention deletes holds older than the retention and keeps the rest", async () => {
    const resource = `retention:${uid()}`;
    const old = new Date(Date.now() - 40 * 86_400_000);
    const base = { resource, businessKey: "k" };
    await a.prisma.lockHold.createMany({
      data: [
        { ...base, id: `old-${uid()}`, lockId: `O${uid()}`.padEnd(22, "o"), grantedAt: old },
        {
          ...base,
          id: `orphan-${uid()}`,
          lockId: `P${uid()}`.padEnd(22, "p"),
          endedAt: old,
          endType: "expired",
        },
        { ...base, id: `new-${uid()}`, lockId: `N${uid()}`.padEnd(22, "n"), grantedAt: new Date() },
      ],
    });
    expect(await pruneAudit(a.prisma, 30)).toBeGreaterThanOrEqual(2);
    const left = await a.prisma.lockHold.findMany({ where: { resource }, select: { id: true } });
    expect(left.map((row) => row.id.split("-")[0])).toEqual(["new"]);
  });
});
