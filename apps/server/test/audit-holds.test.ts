import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "@warden/testkit";
import { migrate } from "@warden/db";
import { createPool, type Pool } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeLapsedHolds, insertHoldBatch } from "../src/audit/audit-insert.js";
import { pruneAudit } from "../src/audit/retention.js";
import { holdPart, type HoldPart } from "../src/audit/audit-record.js";
import { AuditSpool, type SpoolEntry } from "../src/audit/audit-spool.js";
import { createContextInner } from "../src/context.js";
import type { LiveMessage } from "../src/live/live-bus.js";
import { createCaller } from "../src/routers/_app.js";
import {
  registerResource,
  startHarness,
  uid,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";

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

  it("a permit grant's kind and permits stay whichever part comes first", async () => {
    const id = lockId();
    const permit = (part: HoldPart): HoldPart => ({ ...part, primitive: "semaphore", permits: 3 });
    // The end alone first (another instance released it), then the grant, then a replay.
    await insertHoldBatch(pool, [permit(end(id, T0 + 9_000, "released"))]);
    await insertHoldBatch(pool, [permit(grant(id)), permit(renewal(id, T0 + 4_000, 1))]);
    await insertHoldBatch(pool, [permit(end(id, T0 + 9_000, "released"))]);
    const rows = await row(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: "semaphore", permits: 3, end_type: "released" });
    expect(String(rows[0]!.fence)).toBe("8589934593");
  });

  it("a spool line written before holds had a kind replays as a mutex hold", async () => {
    const id = lockId();
    // A grant and its release as an older server spooled them: no `primitive`, no `permits`.
    const {
      primitive: _primitive,
      permits: _permits,
      ...old
    } = {
      ...grant(id),
      endedAt: T0 + 1_000,
      endType: "released" as const,
    };
    expect(Object.keys(old)).not.toContain("primitive");
    const dir = await mkdtemp(join(tmpdir(), "warden-old-spool-"));
    try {
      await writeFile(join(dir, "active.jsonl"), `${JSON.stringify(old)}\n`);
      const spool = new AuditSpool(dir, 1024 * 1024);
      await spool.open();
      const stored = await spool.replay(
        (batch: SpoolEntry[]) => insertHoldBatch(pool, batch as HoldPart[]).then(() => undefined),
        500,
      );
      expect(stored).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const rows = await row(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      kind: null,
      permits: null,
      client_id: "c1",
      end_type: "released",
    });
    expect(String(rows[0]!.fence)).toBe("8589934593");
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

  describe("semaphore permit grants (one hold row each, decision 0196)", () => {
    let tenant: TenantHandle;
    let sem: string;
    beforeAll(async () => {
      tenant = await a.tenant();
      sem = `sem:${uid()}`;
      await tenant.caller().resource.create({
        name: sem,
        kind: "semaphore",
        permits: 5,
        defaultLeaseMs: 5_000,
        maxLeaseMs: 30_000,
        maxRenewals: null,
        expectedHoldMs: null,
        degrade: true,
        localFallback: "deny",
        fair: false,
        waitReplicas: 0,
        description: "permit holds test",
      });
    });

    const acquire = async (businessKey: string, ownerId: string, leaseMs?: number) => {
      const grant = await tenant.caller().semaphore.acquire({
        resource: sem,
        businessKey,
        ownerId,
        permits: 2,
        ...(leaseMs === undefined ? {} : { leaseMs }),
      });
      if (!grant.granted) throw new Error("expected a permit");
      return grant;
    };
    const holdOf = (lockId: string) => a.prisma.lockHold.findUnique({ where: { lockId } });

    it("a grant and its release are one lock_hold row and no lock_event row; search shows permit-grant and permit-release", async () => {
      const businessKey = `cycle-${uid()}`;
      const grant = await acquire(businessKey, "w");
      await tenant.caller().semaphore.release({
        resource: sem,
        businessKey,
        lockId: grant.lockId,
        tier: grant.tier,
      });
      await a.services.audit.flush();
      const rows = await a.prisma.lockHold.findMany({ where: { lockId: grant.lockId } });
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        kind: "semaphore",
        permits: 2,
        tenantId: tenant.id,
        resource: sem,
        businessKey,
        clientId: `client-${tenant.id}`,
        ownerId: "w",
        tier: grant.tier,
        leaseMs: 5_000,
        endType: "released",
      });
      expect(rows[0]!.fence?.toString()).toBe(grant.fence);
      expect(rows[0]!.grantedAt?.getTime()).toBe(grant.grantedAt);
      expect(await a.prisma.lockEvent.count({ where: { lockId: grant.lockId } })).toBe(0);

      const found = await tenant.caller().event.search({ lockId: grant.lockId });
      expect(found.events.map((e) => e.type).sort()).toEqual(["permit-grant", "permit-release"]);
      for (const event of found.events) {
        expect(event).toMatchObject({
          lockId: grant.lockId,
          fence: grant.fence,
          clientId: `client-${tenant.id}`,
          ownerId: "w",
          tenantId: tenant.id,
          resource: sem,
          businessKey,
          reason: "permits 2",
          grantedAt: grant.grantedAt,
        });
      }
      expect(found.events.find((e) => e.type === "permit-grant")!.leaseMs).toBe(5_000);
      // Found by fence too.
      const byFence = await tenant.caller().event.search({ fence: grant.fence! });
      expect(byFence.events.map((e) => e.lockId)).toEqual([grant.lockId, grant.lockId]);
    });

    it("a renewed permit's row carries its renewal, is not closed as lapsed at its first expiry, and shows no extend event", async () => {
      const businessKey = `renewed-${uid()}`;
      const grant = await acquire(businessKey, "r", 1_000);
      await a.services.audit.flush();
      await tenant.caller().semaphore.extend({
        resource: sem,
        businessKey,
        lockId: grant.lockId,
        tier: grant.tier,
        leaseMs: 8_000,
      });
      await a.services.audit.flush();
      const renewed = await holdOf(grant.lockId);
      expect(renewed).toMatchObject({ kind: "semaphore", renewals: 1, renewLeaseMs: 8_000 });
      expect(renewed!.renewedAt).not.toBeNull();
      expect(renewed!.expiresAt!.getTime()).toBeGreaterThan(grant.expiresAt + 5_000);
      // Past the first expiry and this harness's lapse grace (200 ms, swept every 100 ms):
      // the renewal's expiry keeps the row open.
      await new Promise((resolve) => setTimeout(resolve, grant.expiresAt - Date.now() + 800));
      await a.services.audit.flush();
      expect((await holdOf(grant.lockId))!.endType).toBeNull();
      const found = await tenant.caller().event.search({ lockId: grant.lockId });
      expect(found.events.map((e) => e.type)).toEqual(["permit-grant"]);
      expect(
        (await tenant.caller().event.search({ resource: sem, type: "extend" })).events,
      ).toEqual([]);
      await tenant.caller().semaphore.release({
        resource: sem,
        businessKey,
        lockId: grant.lockId,
        tier: grant.tier,
      });
      await a.services.audit.flush();
      expect((await holdOf(grant.lockId))!.endType).toBe("released");
    });

    it("a force release and a lapse are permit-force-release and permit-expired", async () => {
      const operator = await a.operator("operator");
      const forcedKey = `forced-${uid()}`;
      const forced = await acquire(forcedKey, "stuck");
      const lapsing = await acquire(`lapse-${uid()}`, "gone", 300);
      await operator.caller().holder.forceRelease({
        resource: sem,
        businessKey: forcedKey,
        lockId: forced.lockId,
        reason: "INC-9",
      });
      await a.services.audit.flush();
      expect(await holdOf(forced.lockId)).toMatchObject({
        kind: "semaphore",
        endType: "force-released",
        actor: `operator:${operator.username}`,
        reason: "permits 2: INC-9",
      });
      const byForce = await tenant
        .caller()
        .event.search({ resource: sem, type: "permit-force-release" });
      expect(byForce.events).toMatchObject([
        {
          type: "permit-force-release",
          lockId: forced.lockId,
          fence: forced.fence,
          ownerId: "stuck",
          actor: `operator:${operator.username}`,
          reason: "permits 2: INC-9",
        },
      ]);
      // The lapse report (after the lease and a second's grace) ends the row as expired
      // with its text, even where this harness's sweep closed it as lapsed first.
      await eventually(async () => {
        await a.services.audit.flush();
        return (await holdOf(lapsing.lockId))?.endType === "expired";
      }, 15_000);
      const expired = await tenant
        .caller()
        .event.search({ lockId: lapsing.lockId, type: "permit-expired" });
      expect(expired.events).toMatchObject([
        {
          type: "permit-expired",
          fence: lapsing.fence,
          ownerId: "gone",
          at: lapsing.expiresAt,
          reason: "lapsed: permits 2, no release or renewal before the lease ran out",
        },
      ]);
      expect(
        await a.prisma.lockEvent.count({
          where: { resource: sem, type: { startsWith: "permit-" } },
        }),
      ).toBe(0);
    });

    it("a permit hold the audit closed as lapsed (its instance gone) is permit-expired", async () => {
      const lockId = `Q${uid()}${uid()}`.padEnd(22, "q");
      const businessKey = `crashed-${uid()}`;
      const grantedAt = Date.now() - 60_000;
      const part = a.services.audit.hold(lockId, tenant.id, sem, businessKey, grantedAt);
      Object.assign(part, {
        fence: "8589934999",
        clientId: "gone",
        ownerId: "o",
        tier: "redis",
        leaseMs: 1_000,
        grantedAt,
        expiresAt: grantedAt + 1_000,
        primitive: "semaphore",
        permits: 3,
      });
      await eventually(async () => {
        await a.services.audit.flush();
        return (await holdOf(lockId))?.endType === "lapsed";
      });
      const found = await tenant.caller().event.search({ lockId });
      expect(found.events).toMatchObject([
        {
          type: "permit-expired",
          at: grantedAt + 1_000,
          reason: "lapsed: permits 3, no release or renewal before the lease ran out",
        },
        { type: "permit-grant", at: grantedAt, reason: "permits 3" },
      ]);
    });

    it("a type filter tells mutex holds from permit holds", async () => {
      const businessKey = `both-${uid()}`;
      const mutex = await registerResource(tenant);
      const caller = tenant.caller();
      const lease = await caller.lock.acquire({ resource: mutex, businessKey, ownerId: "m" });
      if (!lease.granted) throw new Error("expected a grant");
      await caller.lock.extend({
        resource: mutex,
        businessKey,
        lockId: lease.lockId,
        tier: lease.tier,
      });
      await caller.lock.release({
        resource: mutex,
        businessKey,
        lockId: lease.lockId,
        tier: lease.tier,
      });
      const permit = await acquire(businessKey, "p");
      await caller.semaphore.extend({
        resource: sem,
        businessKey,
        lockId: permit.lockId,
        tier: permit.tier,
      });
      await caller.semaphore.release({
        resource: sem,
        businessKey,
        lockId: permit.lockId,
        tier: permit.tier,
      });
      await a.services.audit.flush();
      const typesOf = async (type?: Parameters<typeof caller.event.search>[0]["type"]) =>
        (
          await caller.event.search({ businessKey, ...(type === undefined ? {} : { type }) })
        ).events.map(
          (e) =>
            `${e.type}:${e.lockId === lease.lockId ? "lease" : e.lockId === permit.lockId ? "permit" : "?"}`,
        );
      expect((await typesOf()).sort()).toEqual(
        [
          "grant:lease",
          "extend:lease",
          "release:lease",
          "permit-grant:permit",
          "permit-release:permit",
        ].sort(),
      );
      expect(await typesOf("grant")).toEqual(["grant:lease"]);
      expect(await typesOf("release")).toEqual(["release:lease"]);
      expect(await typesOf("extend")).toEqual(["extend:lease"]);
      expect(await typesOf("expired")).toEqual([]);
      expect(await typesOf("force-release")).toEqual([]);
      expect(await typesOf("permit-grant")).toEqual(["permit-grant:permit"]);
      expect(await typesOf("permit-release")).toEqual(["permit-release:permit"]);
      expect(await typesOf("permit-expired")).toEqual([]);
      expect(await typesOf("permit-force-release")).toEqual([]);
      expect(await typesOf("refusal")).toEqual([]);
      // Both read from hold rows: one per hold, no event rows.
      expect(await a.prisma.lockHold.count({ where: { businessKey } })).toBe(2);
      expect(await a.prisma.lockEvent.count({ where: { businessKey } })).toBe(0);
    });
  });
});
