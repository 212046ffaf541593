import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectCode } from "./support/expect-trpc.js";
import {
  registerResource,
  startHarness,
  uid,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";

let h: Harness;
let a: TenantHandle;
let b: TenantHandle;
let resourceB: string;

beforeAll(async () => {
  h = await startHarness();
  a = await h.tenant();
  b = await h.tenant();
  resourceB = await registerResource(b);
});
afterAll(() => h?.close());

async function waitForAudit(predicate: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    if (await predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("audit row never arrived");
}

describe("authentication", () => {
  it("answers UNAUTHORIZED without credentials or with a bad key", async () => {
    await expectCode(h.anonymous().resource.list({}), "UNAUTHORIZED");
    await expectCode(
      h
        .anonymous({ apiKey: "wdn_not-a-key", clientId: "c" })
        .lock.inspect({ resource: resourceB, businessKey: "k" }),
      "UNAUTHORIZED",
    );
    await expectCode(h.anonymous({ sessionToken: "forged" }).tier.state(), "UNAUTHORIZED");
  });

  it("stops a revoked key at once", async () => {
    const c = await h.tenant();
    expect((await c.caller().resource.list({})).resources).toEqual([]);
    const admin = await h.operator("admin");
    expect(await admin.caller().tenant.revokeApiKey({ id: c.keyId })).toEqual({ revoked: true });
    await expectCode(c.caller().resource.list({}), "UNAUTHORIZED");
  });

  it("logs operators in with scrypt and throttles repeated attempts", async () => {
    const viewer = await h.operator("viewer");
    expect(await viewer.caller().auth.me()).toMatchObject({ kind: "operator", role: "viewer" });
    const ip = { ip: `192.0.2.${Math.floor(Math.random() * 250)}` };
    await expectCode(
      h.anonymous(ip).auth.login({ username: viewer.username, password: "wrong password!" }),
      "UNAUTHORIZED",
    );
    let throttled = false;
    for (let i = 0; i < 5 && !throttled; i += 1) {
      const error = await h
        .anonymous(ip)
        .auth.login({ username: viewer.username, password: "wrong" })
        .catch((e: unknown) => e);
      throttled = (error as { code?: string }).code === "TOO_MANY_REQUESTS";
    }
    expect(throttled).toBe(true);
  });

  it("refuses a cookie-authenticated mutation from a foreign origin", async () => {
    const operator = await h.operator("operator");
    const key = { resource: resourceB, businessKey: `csrf-${uid()}`, reason: "cleanup" };
    await expectCode(
      operator.caller({ origin: "https://evil.example" }).holder.forceRelease(key),
      "FORBIDDEN",
    );
    await expectCode(operator.caller({ origin: null }).holder.forceRelease(key), "FORBIDDEN");
    // Reads are not state-changing and stay allowed; the own host is allowed too.
    await operator.caller({ origin: "https://evil.example" }).tier.state();
    await operator
      .caller({ origin: "http://warden.test", host: "warden.test" })
      .holder.forceRelease(key);
  });
});

describe("tenant isolation", () => {
  it("keeps tenant A away from tenant B's resources and locks", async () => {
    const key = { resource: resourceB, businessKey: `iso-${uid()}` };
    const grant = await b.caller().lock.acquire({ ...key, ownerId: "o" });
    if (!grant.granted) throw new Error("expected a grant");
    const asA = a.caller();
    await expectCode(asA.lock.acquire({ ...key, ownerId: "o" }), "NOT_FOUND");
    await expectCode(asA.lock.inspect(key), "NOT_FOUND");
    await expectCode(
      asA.lock.release({ ...key, lockId: grant.lockId, tier: grant.tier }),
      "NOT_FOUND",
    );
    await expectCode(
      asA.lock.extend({ ...key, lockId: grant.lockId, tier: grant.tier }),
      "NOT_FOUND",
    );
    await expectCode(asA.holder.list({ resource: resourceB }), "NOT_FOUND");
    await expectCode(asA.holder.forceRelease({ ...key, reason: "steal it" }), "FORBIDDEN");
    await expectCode(asA.resource.get({ name: resourceB }), "NOT_FOUND");
    await expectCode(asA.resource.update({ name: resourceB, patch: { fair: true } }), "NOT_FOUND");
    await expectCode(asA.resource.retire({ name: resourceB }), "NOT_FOUND");
    expect((await asA.resource.list({})).resources.map((r) => r.name)).not.toContain(resourceB);
    expect((await asA.event.search({ resource: resourceB })).events).toEqual([]);
    await expectCode(asA.stats.series({ resource: resourceB }), "NOT_FOUND");
    // Still held by B, untouched.
    expect((await b.caller().lock.inspect(key)).lease?.lockId).toBe(grant.lockId);
  });
});

describe("quota", () => {
  it("refuses a tenant over its request rate while another tenant goes on", async () => {
    const noisy = await h.tenant(`noisy-${uid()}`, 5);
    const quiet = await h.tenant(`quiet-${uid()}`, 1_000);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => noisy.caller().resource.list({})),
    );
    const refused = results.filter((r) => r.status === "rejected");
    expect(refused.length).toBeGreaterThanOrEqual(10);
    expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({
      code: "TOO_MANY_REQUESTS",
    });
    await quiet.caller().resource.list({});
    const metrics = await h.services.metrics.text();
    expect(metrics).toMatch(
      new RegExp(`warden_quota_refusals_total\\{tenant="${noisy.id}"\\} ${refused.length}`),
    );
  });
});

describe("roles", () => {
  it("lets a viewer read but not force-release or override", async () => {
    const viewer = await h.operator("viewer");
    await viewer.caller().tier.state();
    await expectCode(
      viewer
        .caller()
        .holder.forceRelease({ resource: resourceB, businessKey: "k", reason: "nope" }),
      "FORBIDDEN",
    );
    await expectCode(viewer.caller().tier.override({ tier: "mysql", reason: "nope" }), "FORBIDDEN");
    await expectCode(
      viewer.caller().resource.create({
        name: `x:${uid()}`,
        tenantId: b.id,
        defaultLeaseMs: 1,
        maxLeaseMs: 1,
        maxRenewals: null,
        expectedHoldMs: null,
        degrade: true,
        localFallback: "deny",
        fair: false,
        waitReplicas: 0,
        description: "",
      }),
      "FORBIDDEN",
    );
  });

  it("lets an operator force-release with a reason, and the audit row names them", async () => {
    const operator = await h.operator("operator");
    const key = { resource: resourceB, businessKey: `force-${uid()}` };
    const grant = await b.caller().lock.acquire({ ...key, ownerId: "stuck" });
    if (!grant.granted) throw new Error("expected a grant");
    const { removed } = await operator
      .caller()
      .holder.forceRelease({ ...key, reason: "stuck job INC-42" });
    expect(removed?.lockId).toBe(grant.lockId);
    expect((await b.caller().lock.inspect(key)).lease).toBeNull();
    // The end of the hold's audit row (docs/decisions/0070), read as an event.
    const search = () =>
      operator.caller().event.search({ lockId: grant.lockId, type: "force-release" });
    await waitForAudit(async () => (await search()).events.length === 1);
    const [row] = (await search()).events;
    expect(row).toMatchObject({
      actor: `operator:${operator.username}`,
      reason: "stuck job INC-42",
      tenantId: b.id,
      fence: grant.fence,
    });
  });

  it("lets an operator override the tier, audited with who and why", async () => {
    const operator = await h.operator("operator");
    const forced = await operator
      .caller()
      .tier.override({ tier: "mysql", reason: "redis maintenance" });
    expect(forced).toMatchObject({ tier: "mysql", forced: true });
    expect(h.services.locks.tier).toBe("mysql");
    const back = await operator.caller().tier.override({ tier: null, reason: "maintenance done" });
    expect(back.forced).toBe(false);
    await waitForAudit(
      async () =>
        (await h.prisma.lockEvent.count({
          where: { type: "tier", actor: `operator:${operator.username}` },
        })) >= 1,
    );
    const history = await operator.caller().tier.history({ limit: 10 });
    expect(
      history.some(
        (row) =>
          row.actor === `operator:${operator.username}` && row.reason.includes("redis maintenance"),
      ),
    ).toBe(true);
  });
});
