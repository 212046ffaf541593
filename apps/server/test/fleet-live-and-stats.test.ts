import { afterAll, beforeAll, expect, it } from "vitest";
import type { LiveMessage } from "../src/live/live-bus.js";
import { createContextInner } from "../src/context.js";
import { createCaller } from "../src/routers/_app.js";
import { registerResource, startHarness, uid, type Harness } from "./support/harness.js";

async function eventually<T>(
  read: () => Promise<T> | T,
  ok: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (ok(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not true within ${timeoutMs} ms; last: ${JSON.stringify(last)}`);
}

function granted(
  businessKey: string,
  reply: { granted: boolean; lockId?: string; tier?: "redis" | "mysql" | "local" },
) {
  if (!reply.granted || reply.lockId === undefined || reply.tier === undefined)
    throw new Error("expected a grant");
  return { businessKey, lockId: reply.lockId, tier: reply.tier };
}

let a: Harness;
let b: Harness;
beforeAll(async () => {
  a = await startHarness({ fleet: true, releaseBridge: true });
  b = await startHarness({ fleet: true, releaseBridge: true, shareWith: a });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

it("a live subscriber on one instance sees the other's grants and releases, with fence and holder", async () => {
  const tenant = await a.tenant();
  const resource = await registerResource(tenant);
  const seen: LiveMessage[] = [];
  const unsubscribe = b.services.live.subscribe((message) => seen.push(message));
  try {
    // B tells the fleet it has a live subscriber at its next send (every 100 ms); until
    // then others leave out holds that begin and end within one batch.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const key = { resource, businessKey: `live-${uid()}` };
    const grant = await tenant.caller().lock.acquire({ ...key, ownerId: "w1" });
    if (!grant.granted) throw new Error("expected a grant");
    await tenant.caller().lock.release({ ...key, lockId: grant.lockId, tier: grant.tier });
    const events = await eventually(
      () =>
        seen.flatMap((m) =>
          m.kind === "event" && m.event.lockId === grant.lockId ? [m.event] : [],
        ),
      (found) => found.length >= 2,
    );
    expect(events.map((e) => e.type)).toEqual(["grant", "release"]);
    for (const event of events) {
      expect(event).toMatchObject({ fence: grant.fence, ownerId: "w1", tenantId: tenant.id });
    }
  } finally {
    unsubscribe();
  }
});

it("live locks, holder facts and statistics describe the fleet on every instance", async () => {
  const tenant = await a.tenant();
  const resource = await registerResource(tenant);
  const viaA = tenant.caller();
  const viaB = createCaller(
    createContextInner(b.services, { apiKey: tenant.key, clientId: "client-b" }),
  );
  const held: { businessKey: string; lockId: string; tier: "redis" | "mysql" | "local" }[] = [];
  for (let i = 0; i < 3; i += 1)
    held.push(
      granted(
        `a${i}`,
        await viaA.lock.acquire({ resource, businessKey: `a${i}`, ownerId: "o", leaseMs: 20_000 }),
      ),
    );
  for (let i = 0; i < 2; i += 1)
    held.push(
      granted(
        `b${i}`,
        await viaB.lock.acquire({ resource, businessKey: `b${i}`, ownerId: "o", leaseMs: 20_000 }),
      ),
    );
  // Short holds on both, for the hold-time percentiles.
  for (let i = 0; i < 10; i += 1) {
    const via = i % 2 === 0 ? viaA : viaB;
    const grant = await via.lock.acquire({ resource, businessKey: `s${i}`, ownerId: "o" });
    if (!grant.granted) throw new Error("expected a grant");
    await via.lock.release({
      resource,
      businessKey: `s${i}`,
      lockId: grant.lockId,
      tier: grant.tier,
    });
  }
  for (const instance of [a, b]) {
    await eventually(
      () => instance.services.tracker.countsByResource().get(resource) ?? 0,
      (count) => count === 5,
    );
    const metrics = await instance.services.metrics.text();
    expect(metrics).toContain(`warden_live_locks{resource="${resource}",kind="mutex"} 5`);
  }
  // B reports the grant facts of a lease granted through A.
  const listed = await viaB.holder.list({ resource, businessKey: "a0" });
  expect(listed.holders[0]?.grantedAt).not.toBeNull();

  const overviewOf = (h: Harness) =>
    createCaller(createContextInner(h.services, { apiKey: tenant.key })).stats.overview({
      windowSec: 300,
    });
  for (const instance of [a, b]) {
    const overview = await eventually(
      () => overviewOf(instance),
      (o) => o.acquires === 15 && o.liveLocks === 5,
    );
    expect(overview.granted).toBe(15);
    const holds = await createCaller(
      createContextInner(instance.services, { apiKey: tenant.key }),
    ).stats.holdTimes({ resource });
    expect(holds.samples).toBe(10);
  }
  for (const [index, grant] of held.entries()) {
    const via = index < 3 ? viaA : viaB;
    await via.lock.release({
      resource,
      businessKey: grant.businessKey,
      lockId: grant.lockId,
      tier: grant.tier,
    });
  }
  for (const instance of [a, b]) {
    await eventually(
      () => instance.services.tracker.countsByResource().get(resource) ?? 0,
      (count) => count === 0,
    );
  }
});

it("an instance that joins later learns the leases held and the last hour of statistics", async () => {
  const tenant = await a.tenant();
  const resource = await registerResource(tenant);
  const grant = await tenant
    .caller()
    .lock.acquire({ resource, businessKey: "late", ownerId: "o", leaseMs: 20_000 });
  if (!grant.granted) throw new Error("expected a grant");
  await eventually(
    () => b.services.tracker.countsByResource().get(resource) ?? 0,
    (count) => count === 1,
  );
  const c = await startHarness({ fleet: true, shareWith: a });
  try {
    await eventually(
      () => c.services.tracker.find({ resource, businessKey: "late" }, grant.lockId),
      (lease) => lease?.fence === grant.fence,
    );
    await eventually(
      () => c.services.stats.holdSummary(undefined) && c.services.stats.totals(300).get(resource),
      (point) => point?.acquires === 1,
    );
  } finally {
    await c.closeServices();
    await c.close();
  }
});

it("a tenant's overview on an instance that never served its resource still counts it", async () => {
  const tenant = await a.tenant();
  const resource = await registerResource(tenant);
  for (let i = 0; i < 3; i += 1)
    granted(
      `only-a-${i}`,
      await tenant
        .caller()
        .lock.acquire({ resource, businessKey: `only-a-${i}`, ownerId: "o", leaseMs: 20_000 }),
    );
  const viaB = createCaller(createContextInner(b.services, { apiKey: tenant.key }));
  const overview = await eventually(
    () => viaB.stats.overview({ windowSec: 300 }),
    (o) => o.acquires === 3 && o.liveLocks === 3,
  );
  expect(overview.granted).toBe(3);
});

it("the overview's waiters are the sum over the instances", async () => {
  const tenant = await a.tenant();
  const resource = await registerResource(tenant);
  const key = { resource, businessKey: "queued" };
  const viaA = tenant.caller();
  const viaB = createCaller(createContextInner(b.services, { apiKey: tenant.key }));
  const held = granted(
    "queued",
    await viaA.lock.acquire({ ...key, ownerId: "holder", leaseMs: 20_000 }),
  );
  const waiting = viaA.lock.acquire({ ...key, ownerId: "waiter", waitMs: 10_000 });
  const waiters = async () => (await viaB.stats.overview({ windowSec: 60 })).waiters;
  await eventually(waiters, (count) => count === 1);
  await viaA.lock.release({ ...key, lockId: held.lockId, tier: held.tier });
  expect((await waiting).granted).toBe(true);
  await eventually(waiters, (count) => count === 0);
});
