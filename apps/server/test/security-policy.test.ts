import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContextInner } from "../src/context.js";
import { createCaller } from "../src/routers/_app.js";
import { expectCode } from "./support/expect-trpc.js";
import {
  registerResource,
  startHarness,
  uid,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";

// Issue 18, findings 3, 4 and 8: who may change policy, who dates audit rows, and what a
// foreign name answers.

let h: Harness;
let a: TenantHandle;
let b: TenantHandle;
let lockOnly: TenantHandle;
let resourceB: string;

beforeAll(async () => {
  h = await startHarness();
  a = await h.tenant();
  b = await h.tenant();
  lockOnly = await h.tenant(undefined, undefined, "lock");
  resourceB = await registerResource(b);
});
afterAll(() => h?.close());

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let i = 0; i < 100 && !ok(value); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

describe("API key scopes", () => {
  it("refuses policy changes with a lock-scoped key and changes nothing", async () => {
    // The tenant's own resource, registered by an operator.
    const admin = await h.operator("admin");
    const name = `res:${uid()}`;
    await admin.caller().resource.create({
      name,
      tenantId: lockOnly.id,
      defaultLeaseMs: 5_000,
      maxLeaseMs: 30_000,
      maxRenewals: null,
      expectedHoldMs: null,
      degrade: true,
      localFallback: "deny",
      fair: false,
      waitReplicas: 0,
      description: "owned by a lock-only key",
    });
    const caller = lockOnly.caller();
    await expectCode(
      caller.resource.update({ name, patch: { localFallback: "allow", maxLeaseMs: 60_000 } }),
      "FORBIDDEN",
    );
    await expectCode(caller.resource.retire({ name }), "FORBIDDEN");
    await expectCode(
      caller.resource.create({
        name: `res:${uid()}`,
        defaultLeaseMs: 5_000,
        maxLeaseMs: 30_000,
        maxRenewals: null,
        expectedHoldMs: null,
        degrade: true,
        localFallback: "allow",
        fair: false,
        waitReplicas: 0,
        description: "",
      }),
      "FORBIDDEN",
    );
    const after = await caller.resource.get({ name });
    expect(after).toMatchObject({ localFallback: "deny", maxLeaseMs: 30_000, retiredAt: null });
    // It still locks.
    const grant = await caller.lock.acquire({ resource: name, businessKey: "k", ownerId: "o" });
    expect(grant.granted).toBe(true);
  });

  it("keys are made lock-only unless admin is asked for", async () => {
    const admin = await h.operator("admin");
    const plain = await admin.caller().tenant.createApiKey({ tenantId: a.id, name: "svc" });
    expect(plain.scopes).toEqual(["lock"]);
    const iac = await admin
      .caller()
      .tenant.createApiKey({ tenantId: a.id, name: "iac", scopes: ["admin"] });
    expect(iac.scopes).toEqual(["lock", "admin"]);
    const keys = await admin.caller().tenant.listApiKeys({ tenantId: a.id });
    expect(keys.find((key) => key.id === plain.id)?.scopes).toBe("lock");
  });

  it("audits every policy change with the before and after of the changed fields", async () => {
    const name = await registerResource(a);
    await a
      .caller()
      .resource.update({ name, patch: { localFallback: "allow", maxLeaseMs: 60_000 } });
    const operator = await h.operator("operator");
    await operator.caller().resource.update({ name, patch: { fair: true } });
    await a.caller().resource.retire({ name });
    const found = await eventually(
      () => a.caller().event.search({ resource: name, type: "policy" }),
      (page) => page.events.length >= 4,
    );
    const reasons = found.events.map((event) => event.reason);
    expect(reasons).toContain(
      'update {"maxLeaseMs":[30000,60000],"localFallback":["deny","allow"]}',
    );
    expect(reasons).toContain('update {"fair":[false,true]}');
    expect(reasons.some((reason) => reason?.startsWith('retire {"retiredAt":[null,'))).toBe(true);
    expect(reasons.some((reason) => reason?.startsWith("create {"))).toBe(true);
    const actors = found.events.map((event) => event.actor);
    expect(actors).toContain(`operator:${operator.username}`);
    expect(actors.some((actor) => actor?.startsWith(`tenant:${a.id}/key:`))).toBe(true);
    // Dated by the server: within this test's run.
    for (const event of found.events) expect(Math.abs(event.at - Date.now())).toBeLessThan(60_000);
  });
});

describe("API key resource prefixes", () => {
  it("a key made for a prefix reaches only its tenant's resources under that prefix", async () => {
    const tenant = await h.tenant();
    const outside = await registerResource(tenant); // "res:…"
    const admin = await h.operator("admin");
    const made = await admin.caller().tenant.createApiKey({
      tenantId: tenant.id,
      name: "orders team",
      scopes: ["admin"],
      resourcePrefix: "orders:",
    });
    const scoped = createCaller(
      createContextInner(h.services, { apiKey: made.key, clientId: "orders" }),
    );
    const policy = {
      defaultLeaseMs: 5_000,
      maxLeaseMs: 30_000,
      maxRenewals: null,
      expectedHoldMs: null,
      degrade: true,
      localFallback: "deny" as const,
      fair: false,
      waitReplicas: 0,
      description: "",
    };
    const inside = `orders:${uid()}`;
    await scoped.resource.create({ ...policy, name: inside });
    await expectCode(scoped.resource.create({ ...policy, name: `res:${uid()}` }), "FORBIDDEN");
    expect((await scoped.resource.list({})).resources.map((r) => r.name)).toEqual([inside]);
    await expectCode(scoped.resource.get({ name: outside }), "NOT_FOUND");
    await expectCode(
      scoped.resource.update({ name: outside, patch: { localFallback: "allow" } }),
      "NOT_FOUND",
    );
    await expectCode(
      scoped.lock.acquire({ resource: outside, businessKey: "k", ownerId: "o" }),
      "NOT_FOUND",
    );
    const grant = await scoped.lock.acquire({ resource: inside, businessKey: "k", ownerId: "o" });
    expect(grant.granted).toBe(true);
  });
});

describe("foreign names answer like unknown ones", () => {
  it("resource.create with another tenant's name is NOT_FOUND, as resource.get is", async () => {
    const policy = {
      defaultLeaseMs: 5_000,
      maxLeaseMs: 30_000,
      maxRenewals: null,
      expectedHoldMs: null,
      degrade: true,
      localFallback: "deny" as const,
      fair: false,
      waitReplicas: 0,
      description: "",
    };
    const created = await expectCode(
      a.caller().resource.create({ ...policy, name: resourceB }),
      "NOT_FOUND",
    );
    const got = await expectCode(a.caller().resource.get({ name: resourceB }), "NOT_FOUND");
    const unknown = await expectCode(
      a.caller().resource.get({ name: `res:${uid()}` }),
      "NOT_FOUND",
    );
    expect(created.message).not.toMatch(/exists/);
    expect(got.message.replace(resourceB, "X")).toBe(unknown.message.replace(/res:\w+/, "X"));
    // B's resource is untouched.
    expect((await b.caller().resource.get({ name: resourceB })).tenantId).toBe(b.id);
  });

  it("a heartbeat with another tenant's clientId registers the caller's own instance", async () => {
    const clientId = `shared-${uid()}`;
    const beat = {
      host: "h",
      pid: 1,
      sdkVersion: "1.0.0",
      tier: "redis" as const,
      localSinceMs: null,
    };
    await b.caller({ clientId }).client.heartbeat({ ...beat, host: "b-host" });
    await a.caller({ clientId }).client.heartbeat({ ...beat, host: "a-host" });
    const seenByB = await b.caller().client.list({});
    const seenByA = await a.caller().client.list({});
    expect(seenByB.find((row) => row.clientId === clientId)?.host).toBe("b-host");
    expect(seenByA.find((row) => row.clientId === clientId)?.host).toBe("a-host");
  });
});

describe("server-owned timestamps", () => {
  const beat = { host: "h", pid: 1, sdkVersion: "1.0.0", tier: "redis" as const };

  it("refuses instants in the future and reversed periods with a typed 400, storing nothing", async () => {
    const clientId = `ts-${uid()}`;
    const caller = a.caller({ clientId });
    const year9999 = Date.UTC(9999, 11, 31);
    for (const input of [
      { ...beat, localPeriods: [{ fromMs: 0, toMs: year9999 }] },
      { ...beat, localPeriods: [{ fromMs: 8_640_000_000_000_000, toMs: 8_640_000_000_000_000 }] },
      { ...beat, localPeriods: [{ fromMs: Date.now() - 1_000, toMs: Date.now() - 2_000 }] },
      { ...beat, localSinceMs: 8_640_000_000_000_000 },
    ]) {
      const error = await expectCode(caller.client.heartbeat(input), "BAD_REQUEST");
      expect(error.message).not.toMatch(/datetime|prisma|invalid time/i);
    }
    expect((await a.caller().client.list({})).some((row) => row.clientId === clientId)).toBe(false);
  });

  it("clamps reported local periods to the instance's life on this server and keeps the claim as data", async () => {
    const clientId = `clamp-${uid()}`;
    const caller = a.caller({ clientId });
    const before = Date.now();
    await caller.client.heartbeat({ ...beat, localSinceMs: 0 });
    const row = (await a.caller().client.list({})).find((r) => r.clientId === clientId);
    expect(row!.localSince).toBeGreaterThanOrEqual(before - 5);
    await caller.client.heartbeat({ ...beat, localPeriods: [{ fromMs: 0, toMs: 5 }] });
    const page = await eventually(
      () => a.caller().event.search({ clientId, type: "local-mode" }),
      (found) => found.events.length > 0,
    );
    const [event] = page.events;
    expect(event!.at).toBeGreaterThanOrEqual(before - 5);
    expect(event!.reason).toContain("(reported 0..5)");
    // The whole type is searchable (it answered 500 "Invalid time value" before).
    await a.caller().event.search({ type: "local-mode" });
  });

  it("refuses control characters in clientId and host instead of storing them", async () => {
    await expectCode(
      a.caller({ clientId: "evil\nINFO forged line" }).client.heartbeat(beat),
      "BAD_REQUEST",
    );
    await expectCode(
      a.caller({ clientId: `c-${uid()}` }).client.heartbeat({ ...beat, host: "h\u001b[2J" }),
      "BAD_REQUEST",
    );
    await expectCode(
      a.caller({ clientId: "x".repeat(60_000) }).client.heartbeat(beat),
      "BAD_REQUEST",
    );
    const name = await registerResource(a);
    await expectCode(
      a.caller().resource.update({ name, patch: { description: "ok\nINFO forged" } }),
      "BAD_REQUEST",
    );
    expect((await a.caller().resource.get({ name })).description).toBe("test");
  });
});
