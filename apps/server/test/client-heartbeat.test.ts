import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectCode } from "./support/expect-trpc.js";
import { startHarness, uid, type Harness, type TenantHandle } from "./support/harness.js";

let h: Harness;
let tenant: TenantHandle;
let other: TenantHandle;

beforeAll(async () => {
  h = await startHarness();
  tenant = await h.tenant();
  other = await h.tenant();
});
afterAll(() => h?.close());

const beat = { host: "app-1", pid: 42, sdkVersion: "0.1.0", tier: "redis" as const };

async function row(tenantId: string, clientId: string) {
  return h.prisma.clientInstance.findUnique({
    where: { tenantId_clientId: { tenantId, clientId } },
  });
}

describe("client heartbeats (one statement each, docs/decisions/0215)", () => {
  it("keeps the first heartbeat's start and refreshes everything else", async () => {
    const clientId = `sdk-${uid()}`;
    const c = tenant.caller({ clientId });
    const before = Date.now();
    await c.client.heartbeat(beat);
    const first = await row(tenant.id, clientId);
    expect(first).toMatchObject({ host: "app-1", pid: 42, tier: "redis", localSince: null });
    expect(first!.startedAt.getTime()).toBeGreaterThanOrEqual(before - 5);
    expect(first!.lastSeenAt.getTime()).toBe(first!.startedAt.getTime());
    await new Promise((resolve) => setTimeout(resolve, 20));
    await c.client.heartbeat({
      ...beat,
      host: "app-2",
      pid: 7,
      sdkVersion: "0.2.0",
      tier: "mysql",
    });
    const second = await row(tenant.id, clientId);
    expect(second).toMatchObject({ host: "app-2", pid: 7, sdkVersion: "0.2.0", tier: "mysql" });
    expect(second!.startedAt).toEqual(first!.startedAt);
    expect(second!.lastSeenAt.getTime()).toBeGreaterThan(first!.lastSeenAt.getTime());
  });

  it("clamps a reported local-mode start to the instance's first heartbeat", async () => {
    const clientId = `sdk-${uid()}`;
    const c = tenant.caller({ clientId });
    await c.client.heartbeat(beat);
    const startedAt = (await row(tenant.id, clientId))!.startedAt.getTime();
    // A start long before this server ever saw the instance is moved up to its first heartbeat.
    await c.client.heartbeat({ ...beat, tier: "local", localSinceMs: startedAt - 3_600_000 });
    expect((await row(tenant.id, clientId))!.localSince!.getTime()).toBe(startedAt);
    // A new instance's report is clamped to now: its first heartbeat is this one.
    const fresh = `sdk-${uid()}`;
    const before = Date.now();
    await tenant.caller({ clientId: fresh }).client.heartbeat({
      ...beat,
      tier: "local",
      localSinceMs: before - 3_600_000,
    });
    const freshRow = (await row(tenant.id, fresh))!;
    expect(freshRow.localSince!.getTime()).toBe(freshRow.startedAt.getTime());
    // Back on a shared tier: the row says so.
    await c.client.heartbeat({ ...beat, localSinceMs: null });
    expect((await row(tenant.id, clientId))!.localSince).toBeNull();
  });

  it("gives another tenant's instance of the same clientId its own row", async () => {
    const clientId = `sdk-${uid()}`;
    await tenant.caller({ clientId }).client.heartbeat(beat);
    await other.caller({ clientId }).client.heartbeat({ ...beat, host: "elsewhere" });
    expect((await row(tenant.id, clientId))!.host).toBe("app-1");
    expect((await row(other.id, clientId))!.host).toBe("elsewhere");
    const listed = await other.caller().client.list({});
    expect(listed.filter((r) => r.clientId === clientId).map((r) => r.host)).toEqual(["elsewhere"]);
  });

  it("refuses a bad heartbeat and stores nothing", async () => {
    const clientId = `sdk-${uid()}`;
    const c = tenant.caller({ clientId });
    await expectCode(c.client.heartbeat({ ...beat, host: "h".repeat(256) }), "BAD_REQUEST");
    await expectCode(
      c.client.heartbeat({ ...beat, localSinceMs: Date.now() + 3_600_000 }),
      "BAD_REQUEST",
    );
    await expectCode(
      c.client.heartbeat({ ...beat, localPeriods: [{ fromMs: 2_000, toMs: 1_000 }] }),
      "BAD_REQUEST",
    );
    expect(await row(tenant.id, clientId)).toBeNull();
  });
});
