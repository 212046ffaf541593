import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContextInner } from "../src/context.js";
import type { LiveMessage } from "../src/live/live-bus.js";
import { createCaller } from "../src/routers/_app.js";
import { startHarness, uid, type Harness, type TenantHandle } from "./support/harness.js";

// Issue 18 follow-up: an API key limited to a resource prefix (docs/decisions/0100) sees
// nothing outside it on any read path, as if its tenant's other resources did not exist.
// The prefix contains `_` on purpose: a LIKE pattern that does not escape it would also
// match the sibling resource `oX…`.

let h: Harness;
let tenant: TenantHandle;
let inside: string;
let outside: string;
let scoped: ReturnType<typeof createCaller>;
const prefix = "o_";
const scopedClient = `orders-${uid()}`;
const otherClient = `billing-${uid()}`;
const idleClient = `idle-${uid()}`;
const beat = { host: "h", pid: 1, sdkVersion: "1.0.0", tier: "redis" as const };
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

/** Acquires and releases one key of `resource` as `caller`; returns the lockId. */
async function holdOnce(
  caller: ReturnType<typeof createCaller>,
  resource: string,
  businessKey: string,
): Promise<string> {
  const grant = await caller.lock.acquire({ resource, businessKey, ownerId: "o" });
  if (!grant.granted) throw new Error("expected a grant");
  await caller.lock.release({ resource, businessKey, lockId: grant.lockId, tier: grant.tier });
  return grant.lockId;
}

beforeAll(async () => {
  h = await startHarness();
  tenant = await h.tenant();
  inside = `${prefix}${uid()}`;
  outside = `oX${uid()}`;
  await tenant.caller().resource.create({ ...policy, name: inside });
  await tenant.caller().resource.create({ ...policy, name: outside });
  const admin = await h.operator("admin");
  const made = await admin.caller().tenant.createApiKey({
    tenantId: tenant.id,
    name: "orders team",
    resourcePrefix: prefix,
  });
  scoped = createCaller(
    createContextInner(h.services, { apiKey: made.key, clientId: scopedClient }),
  );
}, 120_000);
afterAll(() => h?.close());

describe("a prefix-limited key", () => {
  it("finds no audit events of its tenant's other resources, nor tenant-wide ones", async () => {
    const other = tenant.caller({ clientId: otherClient });
    const outsideLock = await holdOnce(other, outside, `k-${uid()}`);
    await other.client.heartbeat({ ...beat, localPeriods: [{ fromMs: 0, toMs: 5 }] });
    const insideLock = await holdOnce(scoped, inside, `k-${uid()}`);
    await h.services.audit.flush();

    // The tenant-wide key sees all of it: the rows exist.
    const all = await tenant.caller().event.search({});
    expect(all.events.some((e) => e.resource === outside)).toBe(true);
    expect(all.events.some((e) => e.type === "local-mode")).toBe(true);

    const seen = await scoped.event.search({});
    expect(seen.events.length).toBeGreaterThan(0);
    expect(seen.events.every((e) => e.resource.startsWith(prefix))).toBe(true);
    expect(seen.events.some((e) => e.lockId === insideLock)).toBe(true);
    // Filters naming what lies outside find nothing, as for an unknown name.
    expect((await scoped.event.search({ resource: outside })).events).toEqual([]);
    expect((await scoped.event.search({ lockId: outsideLock })).events).toEqual([]);
    expect((await scoped.event.search({ clientId: otherClient })).events).toEqual([]);
    expect((await scoped.event.search({ type: "local-mode" })).events).toEqual([]);
    expect((await scoped.event.search({ type: "policy" })).events.map((e) => e.resource)).toEqual([
      inside,
    ]);
  });

  it("lists only the SDK instances that have held locks under its prefix", async () => {
    await scoped.client.heartbeat(beat);
    const other = tenant.caller({ clientId: otherClient });
    await other.client.heartbeat(beat);
    await tenant.caller({ clientId: idleClient }).client.heartbeat(beat);
    await holdOnce(other, outside, `k-${uid()}`);
    await holdOnce(scoped, inside, `k-${uid()}`);
    await h.services.audit.flush();

    const everyone = (await tenant.caller().client.list({})).map((c) => c.clientId);
    expect(everyone).toEqual(expect.arrayContaining([scopedClient, otherClient, idleClient]));
    const listed = await scoped.client.list({});
    expect(listed.map((c) => c.clientId)).toEqual([scopedClient]);
    expect(listed[0]).toMatchObject({ tenantId: tenant.id, host: "h", pid: 1, tier: "redis" });
    expect(typeof listed[0]!.lastSeenAt).toBe("number");
  });

  it("cannot cancel a wait on a resource outside its prefix: the waitId is unknown to it", async () => {
    const other = tenant.caller({ clientId: otherClient });
    const key = { resource: outside, businessKey: `w-${uid()}` };
    const held = await other.lock.acquire({ ...key, ownerId: "holder" });
    if (!held.granted) throw new Error("expected a grant");
    const waitId = `wait-${uid()}`;
    const waiting = tenant
      .caller({ clientId: `waiter-${uid()}` })
      .lock.acquire({ ...key, ownerId: "waiter", waitMs: 10_000, waitId });
    const deadline = Date.now() + 5_000;
    while ((await other.holder.waiters(key)).waiters.length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await other.holder.waiters(key)).waiters).toHaveLength(1);

    expect((await scoped.lock.cancelWait({ waitId })).cancelled).toBe(false);
    expect((await scoped.lock.cancelWait({ waitId: `never-${uid()}` })).cancelled).toBe(false);
    expect((await other.holder.waiters(key)).waiters).toHaveLength(1);
    await other.lock.release({ ...key, lockId: held.lockId, tier: held.tier });
    expect((await waiting).granted).toBe(true);
  });

  it("receives on live.events only the events of resources under its prefix", async () => {
    const controller = new AbortController();
    const stream = (await createCaller(
      createContextInner(h.services, {
        apiKey: (await freshScopedKey()).key,
        clientId: `live-${uid()}`,
      }),
      { signal: controller.signal },
    ).live.events({})) as AsyncIterable<unknown>;
    const received: LiveMessage[] = [];
    const reading = (async () => {
      for await (const item of stream) {
        // Each item is tRPC's tracked envelope: [id, data, marker].
        const message = (item as [string, LiveMessage])[1];
        if (message.kind === "event") received.push(message);
      }
    })().catch(() => undefined);
    try {
      // Give the subscription a moment to attach to the bus.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const other = tenant.caller({ clientId: otherClient });
      await holdOnce(other, outside, `k-${uid()}`);
      await other.client.heartbeat({ ...beat, localPeriods: [{ fromMs: 0, toMs: 5 }] });
      const insideLock = await holdOnce(scoped, inside, `k-${uid()}`);
      await h.services.audit.flush();
      const deadline = Date.now() + 10_000;
      while (
        !received.some((m) => m.kind === "event" && m.event.lockId === insideLock) &&
        Date.now() < deadline
      )
        await new Promise((resolve) => setTimeout(resolve, 50));
      // Anything published before the inside release has arrived by now (one bus, in order).
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      controller.abort();
      await reading;
    }
    const resources = received.flatMap((m) => (m.kind === "event" ? [m.event.resource] : []));
    expect(resources.length).toBeGreaterThan(0);
    expect(resources.filter((r) => !r.startsWith(prefix))).toEqual([]);
  });
});

/** Another key of the same tenant and prefix (each stream counts against its credential). */
async function freshScopedKey(): Promise<{ key: string }> {
  const admin = await h.operator("admin");
  return admin.caller().tenant.createApiKey({
    tenantId: tenant.id,
    name: `orders live ${uid()}`,
    resourcePrefix: prefix,
  });
}
