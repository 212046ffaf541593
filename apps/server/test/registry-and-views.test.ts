import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pruneAudit } from "../src/audit/retention.js";
import { expectCode } from "./support/expect-trpc.js";
import {
  registerResource,
  startHarness,
  uid,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";

let h: Harness;
let tenant: TenantHandle;

beforeAll(async () => {
  h = await startHarness();
  tenant = await h.tenant();
});
afterAll(() => h?.close());

const policy = {
  defaultLeaseMs: 5_000,
  maxLeaseMs: 20_000,
  maxRenewals: 10,
  expectedHoldMs: 1_000,
  degrade: true,
  localFallback: "deny" as const,
  fair: false,
  waitReplicas: 0,
  description: "settles one order",
};

describe("resource router", () => {
  it("creates, reads, updates, lists and retires", async () => {
    const c = tenant.caller();
    const name = `order:settle:${uid()}`;
    const created = await c.resource.create({ name, ...policy });
    expect(created).toMatchObject({ name, tenantId: tenant.id, ...policy, retiredAt: null });
    await expectCode(c.resource.create({ name, ...policy }), "CONFLICT");
    expect(await c.resource.get({ name })).toMatchObject({ name, maxLeaseMs: 20_000 });
    expect(
      (await c.resource.update({ name, patch: { fair: true, maxLeaseMs: 30_000 } })).fair,
    ).toBe(true);
    expect(
      (await c.resource.list({ search: "order:settle" })).resources.map((r) => r.name),
    ).toContain(name);
    const retired = await c.resource.retire({ name });
    expect(retired.retiredAt).not.toBeNull();
    expect((await c.resource.list({})).resources.map((r) => r.name)).not.toContain(name);
    expect(
      (await c.resource.list({ includeRetired: true })).resources.map((r) => r.name),
    ).toContain(name);
  });

  it("rejects invalid policies with field errors and stores nothing", async () => {
    const c = tenant.caller();
    const name = `bad:${uid()}`;
    const error = await expectCode(
      c.resource.create({ name, ...policy, defaultLeaseMs: 30_000, maxLeaseMs: 10_000 }),
      "BAD_REQUEST",
    );
    expect(error.message).toContain("defaultLeaseMs must not exceed maxLeaseMs");
    await expectCode(c.resource.create({ name, ...policy, maxLeaseMs: 60_001 }), "BAD_REQUEST");
    await expectCode(c.resource.create({ name: "bad name with spaces", ...policy }), "BAD_REQUEST");
    await expectCode(c.resource.create({ name: "x".repeat(129), ...policy }), "BAD_REQUEST");
    await expectCode(
      c.resource.create({ name, ...policy, description: "d".repeat(1_001) }),
      "BAD_REQUEST",
    );
    await expectCode(
      c.resource.update({ name: `missing:${uid()}`, patch: { fair: true } }),
      "NOT_FOUND",
    );
    expect(await h.prisma.resource.count({ where: { name } })).toBe(0);
  });

  it("refuses to retire a resource with live locks", async () => {
    const name = await registerResource(tenant);
    const grant = await tenant
      .caller()
      .lock.acquire({ resource: name, businessKey: "k", ownerId: "o" });
    if (!grant.granted) throw new Error("expected a grant");
    await expectCode(tenant.caller().resource.retire({ name }), "CONFLICT");
    expect((await tenant.caller().resource.get({ name })).retiredAt).toBeNull();
    await tenant
      .caller()
      .lock.release({ resource: name, businessKey: "k", lockId: grant.lockId, tier: grant.tier });
    await tenant.caller().resource.retire({ name });
  });
});

describe("holder, event, stats and client routers", () => {
  it("lists live holders with fence and expiry, and finds their events by fence and business key", async () => {
    const name = await registerResource(tenant, { expectedHoldMs: 50 });
    const businessKey = `order-${uid()}`;
    const grant = await tenant
      .caller()
      .lock.acquire({ resource: name, businessKey, ownerId: "worker-1", leaseMs: 10_000 });
    if (!grant.granted) throw new Error("expected a grant");
    const operator = await h.operator("viewer");
    const { holders } = await operator.caller().holder.list({ resource: name });
    expect(holders).toHaveLength(1);
    expect(holders[0]).toMatchObject({
      businessKey,
      lockId: grant.lockId,
      fence: grant.fence,
      holder: { ownerId: "worker-1" },
      renewals: 0,
    });
    expect(holders[0]!.expiresAt).toBeGreaterThan(Date.now());
    await new Promise((resolve) => setTimeout(resolve, 200));
    const overview = await operator.caller().stats.overview({});
    expect(overview.longHolds.map((l) => l.lockId)).toContain(grant.lockId);
    await tenant
      .caller()
      .lock.release({ resource: name, businessKey, lockId: grant.lockId, tier: grant.tier });

    await h.services.audit.flush();
    // Fences are unique per key, not globally: search by fence within the resource.
    const byFence = await operator.caller().event.search({ resource: name, fence: grant.fence! });
    expect(byFence.events.map((e) => e.type).sort()).toEqual(["grant", "release"]);
    const byKey = await tenant.caller().event.search({ businessKey });
    expect(byKey.events.map((e) => e.type)).toEqual(["release", "grant"]);
    expect(byKey.events[0]).toMatchObject({
      lockId: grant.lockId,
      fence: grant.fence,
      ownerId: "worker-1",
    });
    await expectCode(operator.caller().event.search({ fence: "-1" }), "BAD_REQUEST");
    await expectCode(operator.caller().event.search({ cursor: "garbage" }), "BAD_REQUEST");
    const page1 = await operator.caller().event.search({ resource: name, limit: 1 });
    const page2 = await operator
      .caller()
      .event.search({ resource: name, limit: 1, cursor: page1.cursor! });
    expect([page1.events[0]?.type, page2.events[0]?.type]).toEqual(["release", "grant"]);

    const series = await operator
      .caller()
      .stats.series({ resource: name, windowSec: 60, stepSec: 60 });
    expect(series.points.at(-1)).toMatchObject({ acquires: 1, granted: 1 });
    expect(series.points.at(-1)!.holdP50Ms).toBeGreaterThan(100);
    const holds = await operator.caller().stats.holdTimes({ resource: name });
    expect(holds.samples).toBe(1);
    expect(holds.suggestedLeaseMs).toBeGreaterThanOrEqual(1_000);
  });

  it("stores SDK heartbeats and local-mode periods", async () => {
    const c = tenant.caller({ clientId: `sdk-${uid()}` });
    const from = Date.now() - 5_000;
    await c.client.heartbeat({
      host: "app-1",
      pid: 42,
      sdkVersion: "0.1.0",
      tier: "local",
      localSinceMs: from,
    });
    await c.client.heartbeat({
      host: "app-1",
      pid: 42,
      sdkVersion: "0.1.0",
      tier: "redis",
      localSinceMs: null,
      localPeriods: [{ fromMs: from, toMs: Date.now() }],
    });
    const list = await tenant.caller().client.list({});
    expect(list.find((row) => row.host === "app-1")).toMatchObject({
      pid: 42,
      tier: "redis",
      localSince: null,
      tenantId: tenant.id,
    });
    await h.services.audit.flush();
    expect(
      await h.prisma.lockEvent.count({ where: { type: "local-mode", tenantId: tenant.id } }),
    ).toBe(1);
    await expectCode(
      c.client.heartbeat({ host: "h".repeat(256), pid: 1, sdkVersion: "1", tier: "redis" }),
      "BAD_REQUEST",
    );
  });
});

describe("audit retention", () => {
  it("deletes events older than the retention and keeps the rest", async () => {
    const resource = `retention:${uid()}`;
    const day = 86_400_000;
    const row = (id: string, at: number) => ({ id, type: "grant", resource, at: new Date(at) });
    await h.prisma.lockEvent.createMany({
      data: [row(`old-${uid()}`, Date.now() - 40 * day), row(`new-${uid()}`, Date.now() - 2 * day)],
    });
    expect(await pruneAudit(h.prisma, 30)).toBeGreaterThanOrEqual(1);
    const left = await h.prisma.lockEvent.findMany({ where: { resource }, select: { id: true } });
    expect(left.map((r) => r.id.split("-")[0])).toEqual(["new"]);
  });
});
