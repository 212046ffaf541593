import { startMariaDb, type MariaDbServer } from "@warden/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { registerResource, startHarness, uid, type Harness } from "./support/harness.js";

async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not true within ${timeoutMs} ms`);
}

async function cycles(
  tenantCaller: ReturnType<Awaited<ReturnType<Harness["tenant"]>>["caller"]>,
  resource: string,
  count: number,
  prefix: string,
) {
  const grants: { lockId: string; fence: string; businessKey: string }[] = [];
  for (let i = 0; i < count; i += 1) {
    const businessKey = `${prefix}-${i % 50}`;
    const grant = await tenantCaller.lock.acquire({ resource, businessKey, ownerId: "worker" });
    if (!grant.granted) throw new Error("expected a grant");
    await tenantCaller.lock.release({
      resource,
      businessKey,
      lockId: grant.lockId,
      tier: grant.tier,
    });
    grants.push({ lockId: grant.lockId, fence: grant.fence!, businessKey });
  }
  return grants;
}

describe("audit writer", () => {
  let h: Harness | undefined;
  let mariadb: MariaDbServer | undefined;
  afterAll(async () => {
    await h?.close();
    await mariadb?.stop();
  });

  it("stores 1 000 lock cycles as exactly 1 000 hold rows, each once, searchable by fence and business key", async () => {
    const local = await startHarness();
    try {
      const tenant = await local.tenant();
      const resource = await registerResource(tenant);
      const grants = await cycles(tenant.caller(), resource, 1_000, `k${uid()}`);
      await local.services.audit.flush();
      await eventually(
        async () =>
          (await local.prisma.lockHold.count({ where: { resource, endType: "released" } })) >=
          1_000,
      );
      const rows = await local.prisma.lockHold.findMany({ where: { resource } });
      expect(rows).toHaveLength(1_000);
      expect(new Set(rows.map((row) => row.lockId))).toEqual(new Set(grants.map((g) => g.lockId)));
      for (const row of rows) {
        expect(row.grantedAt).not.toBeNull();
        expect(row.endedAt!.getTime()).toBeGreaterThanOrEqual(row.grantedAt!.getTime());
        expect(row.fence).not.toBeNull();
        expect(row.clientId).toBe(`client-${tenant.id}`);
      }
      // The lock path wrote no single-event rows.
      expect(
        await local.prisma.lockEvent.count({
          where: { resource, type: { in: ["grant", "release", "extend", "expired"] } },
        }),
      ).toBe(0);
      const sample = grants[737]!;
      const byFence = await tenant
        .caller()
        .event.search({ resource, fence: sample.fence, businessKey: sample.businessKey });
      // Grant and release may share a millisecond: compare as a set.
      expect(byFence.events.map((e) => `${e.type}:${e.lockId}`).sort()).toEqual([
        `grant:${sample.lockId}`,
        `release:${sample.lockId}`,
      ]);
      // Written by mysql2 in UTC and read back by Prisma: the instant survives.
      for (const event of byFence.events)
        expect(Math.abs(event.at - Date.now())).toBeLessThan(120_000);
      const byKey = await tenant
        .caller()
        .event.search({ resource, businessKey: sample.businessKey, limit: 1_000 });
      expect(byKey.events).toHaveLength(40);
    } finally {
      await local.close();
    }
  });

  it("spools events while MariaDB is down and delivers all of them when it returns", async () => {
    mariadb = await startMariaDb();
    h = await startHarness({ mysqlServerUrl: mariadb.url });
    const tenant = await h.tenant();
    const resource = await registerResource(tenant);
    const caller = tenant.caller();
    await cycles(caller, resource, 10, "warm");
    await h.services.audit.flush();

    await mariadb.kill9();
    // Long enough for the credential and resource caches (1 s) to go stale and for the
    // writer's replays (every second) to fail a few times.
    const during = await cycles(caller, resource, 150, "down");
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    during.push(...(await cycles(caller, resource, 50, "down-later")));
    await h.services.audit.flush();
    await eventually(async () => h!.services.audit.spoolSize.events >= 200, 15_000);
    const metrics = await h.services.metrics.text();
    expect(metrics).toMatch(/warden_audit_spooled_total \d+/);
    expect(Number(/warden_audit_spool_bytes (\d+)/.exec(metrics)?.[1])).toBeGreaterThan(0);

    await mariadb.restart();
    await eventually(
      async () =>
        (await h!.prisma.lockHold.count({ where: { resource, endType: "released" } })) === 210,
      30_000,
    );
    const held = await h.prisma.lockHold.findMany({
      where: { resource, lockId: { in: during.map((g) => g.lockId) } },
      select: { fence: true, grantedAt: true, endedAt: true },
    });
    expect(held).toHaveLength(200);
    expect(held.every((row) => row.fence !== null && row.grantedAt && row.endedAt)).toBe(true);
    await eventually(async () => h!.services.audit.spoolSize.bytes === 0);
    expect(await h.services.metrics.text()).toMatch(/warden_audit_dropped_total 0/);
  }, 90_000);
});
