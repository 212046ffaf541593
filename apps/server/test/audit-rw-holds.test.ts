import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { timeOrderedId, type AuditRecord } from "../src/audit/audit-record.js";
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

describe("read-write grants in the audit (one hold row each, decision 0199)", () => {
  let a: Harness;
  let b: Harness;
  let tenant: TenantHandle;
  let rw: string;
  beforeAll(async () => {
    // The audit closes an open hold 200 ms past its expiry (checked every 100 ms).
    a = await startHarness({ audit: { lapseGraceMs: 200, lapseEveryMs: 100 } });
    b = await startHarness({ shareWith: a, audit: { lapseGraceMs: 200, lapseEveryMs: 100 } });
    tenant = await a.tenant();
    rw = `rw:${uid()}`;
    await tenant.caller().resource.create({
      name: rw,
      kind: "rwlock",
      defaultLeaseMs: 5_000,
      maxLeaseMs: 30_000,
      maxRenewals: null,
      expectedHoldMs: null,
      degrade: true,
      localFallback: "deny",
      fair: false,
      waitReplicas: 0,
      description: "read-write holds test",
    });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  type Caller = ReturnType<TenantHandle["caller"]>;
  const acquire = async (
    mode: "read" | "write",
    businessKey: string,
    ownerId: string,
    leaseMs?: number,
    caller: Caller = tenant.caller(),
  ) => {
    const input = {
      resource: rw,
      businessKey,
      ownerId,
      ...(leaseMs === undefined ? {} : { leaseMs }),
    };
    const grant =
      mode === "read"
        ? await caller.rwlock.acquireRead(input)
        : await caller.rwlock.acquireWrite(input);
    if (!grant.granted) throw new Error(`expected a ${mode} grant`);
    return grant;
  };
  const release = (
    businessKey: string,
    grant: { lockId: string; tier: "redis" | "mysql" | "local" },
    caller: Caller = tenant.caller(),
  ) => caller.rwlock.release({ resource: rw, businessKey, lockId: grant.lockId, tier: grant.tier });
  const holdOf = (lockId: string) => a.prisma.lockHold.findUnique({ where: { lockId } });
  /** What `a`'s live feed publishes, from now until `stop`. */
  const watchLive = () => {
    const seen: AuditRecord[] = [];
    const stop = a.services.live.subscribe((message: LiveMessage) => {
      if (message.kind === "event") seen.push(message.event);
    });
    return { of: (lockId: string) => seen.filter((record) => record.lockId === lockId), stop };
  };

  it("a read and a write grant are one lock_hold row each and no lock_event row; search shows rwlock-grant and rwlock-release as before", async () => {
    for (const mode of ["read", "write"] as const) {
      const businessKey = `cycle-${mode}-${uid()}`;
      const live = watchLive();
      const grant = await acquire(mode, businessKey, "w");
      await release(businessKey, grant);
      live.stop();
      // The live feed carries the records it always did.
      expect(live.of(grant.lockId).map((r) => [r.type, r.reason])).toEqual([
        ["rwlock-grant", mode],
        ["rwlock-release", mode],
      ]);
      await a.services.audit.flush();
      const rows = await a.prisma.lockHold.findMany({ where: { lockId: grant.lockId } });
      expect(rows, mode).toHaveLength(1);
      expect(rows[0], mode).toMatchObject({
        kind: mode,
        permits: null,
        tenantId: tenant.id,
        resource: rw,
        businessKey,
        clientId: `client-${tenant.id}`,
        ownerId: "w",
        tier: grant.tier,
        leaseMs: 5_000,
        reentries: 1,
        renewals: 0,
        endType: "released",
      });
      expect(rows[0]!.fence?.toString()).toBe(grant.fence);
      expect(rows[0]!.grantedAt?.getTime()).toBe(grant.grantedAt);
      expect(await a.prisma.lockEvent.count({ where: { lockId: grant.lockId } })).toBe(0);

      const found = await tenant.caller().event.search({ lockId: grant.lockId });
      expect(found.events.map((e) => e.type).sort()).toEqual(["rwlock-grant", "rwlock-release"]);
      for (const event of found.events) {
        expect(event, `${mode} ${event.type}`).toMatchObject({
          lockId: grant.lockId,
          fence: grant.fence,
          clientId: `client-${tenant.id}`,
          ownerId: "w",
          tenantId: tenant.id,
          resource: rw,
          businessKey,
          tier: grant.tier,
          actor: null,
          reason: mode,
          grantedAt: grant.grantedAt,
        });
      }
      const byType = Object.fromEntries(found.events.map((e) => [e.type, e]));
      expect(byType["rwlock-grant"]).toMatchObject({ leaseMs: 5_000, at: grant.grantedAt });
      expect(byType["rwlock-release"]!.leaseMs).toBeNull();
      // Found by fence, holder and type too.
      // A fence is unique per key: searched with the key.
      const byFence = await tenant
        .caller()
        .event.search({ resource: rw, businessKey, fence: grant.fence! });
      expect(byFence.events.map((e) => e.lockId)).toEqual([grant.lockId, grant.lockId]);
      const byHolder = await tenant
        .caller()
        .event.search({ resource: rw, ownerId: "w", type: "rwlock-release", businessKey });
      expect(byHolder.events.map((e) => e.lockId)).toEqual([grant.lockId]);
    }
  });

  it("a re-entry is the same row (its entries and expiry raised), and a release that leaves an entry ends nothing", async () => {
    const businessKey = `reentry-${uid()}`;
    const live = watchLive();
    const first = await acquire("read", businessKey, "r", 2_000);
    const again = await acquire("read", businessKey, "r", 9_000);
    expect(again).toMatchObject({ reentered: true, lockId: first.lockId });
    await release(businessKey, first);
    await a.services.audit.flush();
    const open = await holdOf(first.lockId);
    expect(open).toMatchObject({ kind: "read", reentries: 2, endType: null, leaseMs: 2_000 });
    expect(open!.expiresAt!.getTime()).toBe(again.expiresAt);
    expect(open!.grantedAt!.getTime()).toBe(first.grantedAt);
    await release(businessKey, first);
    live.stop();
    expect(live.of(first.lockId).map((r) => [r.type, r.reason])).toEqual([
      ["rwlock-grant", "read"],
      ["rwlock-grant", "read (re-entry)"],
      ["rwlock-release", "read: one entry released, 1 left"],
      ["rwlock-release", "read"],
    ]);
    await a.services.audit.flush();
    expect(await a.prisma.lockHold.count({ where: { businessKey } })).toBe(1);
    expect(await a.prisma.lockEvent.count({ where: { businessKey } })).toBe(0);
    expect((await holdOf(first.lockId))!.endType).toBe("released");
    const found = await tenant.caller().event.search({ lockId: first.lockId });
    expect(found.events.map((e) => [e.type, e.reason])).toEqual([
      ["rwlock-release", "read"],
      ["rwlock-grant", "read (re-entered 2 times)"],
    ]);
  });

  it("a renewed grant's row carries its renewal, is not closed as lapsed at its first expiry, and shows no extend event", async () => {
    const businessKey = `renewed-${uid()}`;
    const grant = await acquire("write", businessKey, "r", 1_000);
    await a.services.audit.flush();
    await tenant.caller().rwlock.extend({
      resource: rw,
      businessKey,
      lockId: grant.lockId,
      tier: grant.tier,
      leaseMs: 8_000,
    });
    await a.services.audit.flush();
    const renewed = await holdOf(grant.lockId);
    expect(renewed).toMatchObject({ kind: "write", renewals: 1, renewLeaseMs: 8_000 });
    expect(renewed!.renewedAt).not.toBeNull();
    expect(renewed!.expiresAt!.getTime()).toBeGreaterThan(grant.expiresAt + 5_000);
    // Past the first expiry and this harness's lapse grace (200 ms, swept every 100 ms):
    // the renewal's expiry keeps the row open.
    await sleep(grant.expiresAt - Date.now() + 800);
    await a.services.audit.flush();
    expect((await holdOf(grant.lockId))!.endType).toBeNull();
    const found = await tenant.caller().event.search({ lockId: grant.lockId });
    expect(found.events.map((e) => e.type)).toEqual(["rwlock-grant"]);
    expect((await tenant.caller().event.search({ resource: rw, type: "extend" })).events).toEqual(
      [],
    );
    await release(businessKey, grant);
    await a.services.audit.flush();
    expect((await holdOf(grant.lockId))!.endType).toBe("released");
  });

  it("a force release and an expiry are rwlock-force-release and rwlock-expired, with the reasons they had", async () => {
    const operator = await a.operator("operator");
    const forcedKey = `forced-${uid()}`;
    const forced = await acquire("write", forcedKey, "stuck");
    const lapsing = await acquire("read", `lapse-${uid()}`, "gone", 300);
    const live = watchLive();
    await operator.caller().holder.forceRelease({
      resource: rw,
      businessKey: forcedKey,
      lockId: forced.lockId,
      reason: "INC-9",
    });
    await a.services.audit.flush();
    expect(await holdOf(forced.lockId)).toMatchObject({
      kind: "write",
      endType: "force-released",
      actor: `operator:${operator.username}`,
      reason: "write: INC-9",
    });
    const byForce = await tenant
      .caller()
      .event.search({ resource: rw, type: "rwlock-force-release" });
    expect(byForce.events).toMatchObject([
      {
        type: "rwlock-force-release",
        lockId: forced.lockId,
        fence: forced.fence,
        clientId: `client-${tenant.id}`,
        ownerId: "stuck",
        tier: forced.tier,
        actor: `operator:${operator.username}`,
        reason: "write: INC-9",
      },
    ]);
    // The expiry watch (5 s past the lease) ends the row as expired with its text, even
    // where this harness's sweep closed it as lapsed first.
    await eventually(async () => {
      await a.services.audit.flush();
      return (await holdOf(lapsing.lockId))?.endType === "expired";
    }, 20_000);
    live.stop();
    const expired = await tenant
      .caller()
      .event.search({ lockId: lapsing.lockId, type: "rwlock-expired" });
    expect(expired.events).toMatchObject([
      {
        type: "rwlock-expired",
        fence: lapsing.fence,
        ownerId: "gone",
        at: lapsing.expiresAt,
        reason: "read: the lease ended without a release",
      },
    ]);
    // The live feed had both, as before.
    expect(live.of(forced.lockId).map((r) => [r.type, r.actor, r.reason])).toEqual([
      ["rwlock-force-release", `operator:${operator.username}`, "write: INC-9"],
    ]);
    expect(live.of(lapsing.lockId).map((r) => [r.type, r.reason, r.at])).toEqual([
      ["rwlock-expired", "read: the lease ended without a release", lapsing.expiresAt],
    ]);
    expect(
      await a.prisma.lockEvent.count({ where: { resource: rw, type: { startsWith: "rwlock-" } } }),
    ).toBe(0);
  });

  it("a grant the audit closed as lapsed (its instance gone) is rwlock-expired", async () => {
    const lockId = `W${uid()}${uid()}`.padEnd(22, "w");
    const businessKey = `crashed-${uid()}`;
    const grantedAt = Date.now() - 60_000;
    const part = a.services.audit.hold(lockId, tenant.id, rw, businessKey, grantedAt);
    Object.assign(part, {
      fence: "8589934999",
      clientId: "gone",
      ownerId: "o",
      tier: "redis",
      leaseMs: 1_000,
      grantedAt,
      expiresAt: grantedAt + 1_000,
      primitive: "write",
    });
    await eventually(async () => {
      await a.services.audit.flush();
      return (await holdOf(lockId))?.endType === "lapsed";
    });
    const found = await tenant.caller().event.search({ lockId });
    expect(found.events).toMatchObject([
      {
        type: "rwlock-expired",
        at: grantedAt + 1_000,
        reason: "write: lapsed, no release or renewal before the lease ran out",
      },
      { type: "rwlock-grant", at: grantedAt, reason: "write", leaseMs: 1_000 },
    ]);
  });

  it("a release through another instance ends the row, and the granting instance does not report the grant expired", async () => {
    const businessKey = `elsewhere-${uid()}`;
    const viaB = createCaller(
      createContextInner(b.services, { apiKey: tenant.key, clientId: "other-client" }),
    );
    const live = watchLive();
    const grant = await acquire("read", businessKey, "w", 1_000);
    await release(businessKey, grant, viaB);
    await b.services.audit.flush();
    await a.services.audit.flush();
    const rows = await a.prisma.lockHold.findMany({ where: { lockId: grant.lockId } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      kind: "read",
      clientId: `client-${tenant.id}`,
      ownerId: "w",
      endType: "released",
    });
    // `a` still watches the grant: past its expiry and the watch's grace (5 s, checked every
    // second) it finds the grant gone and the audit holding its release.
    await sleep(grant.expiresAt - Date.now() + 7_000);
    live.stop();
    const published = live.of(grant.lockId).map((r) => r.type);
    expect(published).toContain("rwlock-grant");
    expect(published).not.toContain("rwlock-expired");
    await a.services.audit.flush();
    expect((await holdOf(grant.lockId))!.endType).toBe("released");
    const found = await tenant.caller().event.search({ lockId: grant.lockId });
    expect(found.events.map((e) => e.type)).toEqual(["rwlock-release", "rwlock-grant"]);
  });

  it("a type filter tells read-write holds from mutex holds; older rwlock event rows are still found", async () => {
    const businessKey = `both-${uid()}`;
    const mutex = await registerResource(tenant);
    const caller = tenant.caller();
    const lease = await caller.lock.acquire({ resource: mutex, businessKey, ownerId: "m" });
    if (!lease.granted) throw new Error("expected a grant");
    const ref = { resource: mutex, businessKey, lockId: lease.lockId, tier: lease.tier };
    await caller.lock.extend(ref);
    await caller.lock.release(ref);
    const grant = await acquire("write", businessKey, "g");
    await caller.rwlock.extend({
      resource: rw,
      businessKey,
      lockId: grant.lockId,
      tier: grant.tier,
    });
    await release(businessKey, grant);
    await a.services.audit.flush();
    const typesOf = async (type?: Parameters<typeof caller.event.search>[0]["type"]) =>
      (
        await caller.event.search({ businessKey, ...(type === undefined ? {} : { type }) })
      ).events.map(
        (e) =>
          `${e.type}:${e.lockId === lease.lockId ? "lease" : e.lockId === grant.lockId ? "rw" : "?"}`,
      );
    expect((await typesOf()).sort()).toEqual(
      [
        "grant:lease",
        "extend:lease",
        "release:lease",
        "rwlock-grant:rw",
        "rwlock-release:rw",
      ].sort(),
    );
    expect(await typesOf("grant")).toEqual(["grant:lease"]);
    expect(await typesOf("release")).toEqual(["release:lease"]);
    expect(await typesOf("extend")).toEqual(["extend:lease"]);
    expect(await typesOf("rwlock-grant")).toEqual(["rwlock-grant:rw"]);
    expect(await typesOf("rwlock-release")).toEqual(["rwlock-release:rw"]);
    expect(await typesOf("rwlock-expired")).toEqual([]);
    expect(await typesOf("rwlock-force-release")).toEqual([]);
    expect(await typesOf("permit-grant")).toEqual([]);
    expect(await a.prisma.lockHold.count({ where: { businessKey } })).toBe(2);
    expect(await a.prisma.lockEvent.count({ where: { businessKey } })).toBe(0);

    // A grant an older server audited as event rows: found as it was, under its type.
    const oldKey = `old-${uid()}`;
    const oldLockId = `E${uid()}${uid()}`.padEnd(22, "e");
    await a.prisma.lockEvent.create({
      data: {
        id: timeOrderedId(Date.now()),
        type: "rwlock-grant",
        tenantId: tenant.id,
        resource: rw,
        businessKey: oldKey,
        lockId: oldLockId,
        fence: BigInt("8589935000"),
        clientId: "old",
        ownerId: "o",
        tier: "redis",
        leaseMs: 5_000,
        reason: "read",
        at: new Date(),
      },
    });
    const old = await caller.event.search({ businessKey: oldKey, type: "rwlock-grant" });
    expect(old.events).toMatchObject([
      { type: "rwlock-grant", lockId: oldLockId, reason: "read", fence: "8589935000" },
    ]);
  });
});
