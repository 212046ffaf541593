// Issue 14: three server instances behind a round-robin TCP proxy serve a fair resource
// first come, first served for the whole fleet — the store keeps one queue per key.
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  eventually,
  fleetClient,
  startFleet,
  type Fleet,
  type FleetClient,
} from "./support/fleet.js";
import { uid } from "./support/harness.js";

let fleet: Fleet;

beforeAll(async () => {
  fleet = await startFleet(3);
});
afterAll(async () => {
  await fleet?.close();
});

async function fairResource(client: FleetClient): Promise<string> {
  const name = `fair:${uid()}`;
  await client.resource.create.mutate({
    name,
    defaultLeaseMs: 10_000,
    maxLeaseMs: 30_000,
    maxRenewals: null,
    expectedHoldMs: null,
    degrade: true,
    localFallback: "deny",
    fair: true,
    waitReplicas: 0,
    description: "fleet fairness",
  });
  return name;
}

/**
 * The waits each instance runs for the key, by instance (each one's own wait queues:
 * `holder.waiters` lists the whole fleet's from every instance, decision 0155).
 */
function listed(
  _direct: FleetClient[],
  resource: string,
  businessKey: string,
): Promise<string[][]> {
  return Promise.resolve(
    fleet.instances.map((instance) =>
      instance.server!.services.waiters.list(resource, businessKey).map((waiter) => waiter.ownerId),
    ),
  );
}

it("grants 20 waiters spread over 3 instances in arrival order, and every overview says so", async () => {
  const tenant = await fleet.tenant();
  const direct = fleet.instances.map((instance) => fleetClient(instance.url, tenant.key, "ops"));
  const resource = await fairResource(direct[0]!);
  const key = { resource, businessKey: `fifo-${uid()}` };
  const holderClient = fleetClient(fleet.instances[0]!.url, tenant.key, "holder");
  const first = await holderClient.lock.acquire.mutate({ ...key, ownerId: "holder" });
  if (!first.granted) throw new Error("expected a grant");

  const order: string[] = [];
  const fences: bigint[] = [BigInt(first.fence!)];
  const waits: Promise<void>[] = [];
  const routedBefore = new Map(fleet.proxy.routed);
  for (let i = 0; i < 20; i += 1) {
    const ownerId = `w${String(i).padStart(2, "0")}`;
    // Through the proxy: each call is a new connection, so arrivals rotate over instances.
    const client = fleetClient(fleet.proxy.url, tenant.key, ownerId);
    waits.push(
      client.lock.acquire
        .mutate({ ...key, ownerId, waitMs: 60_000, waitId: `wait-${ownerId}` })
        .then(async (grant) => {
          if (!grant.granted) throw new Error(`${ownerId} was refused`);
          order.push(ownerId);
          fences.push(BigInt(grant.fence!));
          await client.lock.release.mutate({ ...key, lockId: grant.lockId, tier: grant.tier });
        }),
    );
    // The next one arrives once this one waits (its first try was refused by the store).
    const queued = await eventually(
      async () => (await listed(direct, resource, key.businessKey)).flat().length === i + 1,
    );
    expect(queued).toBe(true);
  }
  // Spread: every instance holds a third of the waiters (the proxy rotates connections).
  const byInstance = await listed(direct, resource, key.businessKey);
  expect(byInstance.map((owners) => owners.length)).toEqual([7, 7, 6]);
  for (const instance of fleet.instances) {
    const name = `127.0.0.1:${instance.port}`;
    expect((fleet.proxy.routed.get(name) ?? 0) - (routedBefore.get(name) ?? 0)).toBeGreaterThan(0);
  }
  // A try without waiting, on any instance, is refused while they queue.
  const tryer = fleetClient(fleet.instances[2]!.url, tenant.key, "tryer");
  expect((await tryer.lock.acquire.mutate({ ...key, ownerId: "tryer" })).granted).toBe(false);

  await fleetClient(fleet.instances[1]!.url, tenant.key, "holder").lock.release.mutate({
    ...key,
    lockId: first.lockId,
    tier: first.tier,
  });
  await Promise.all(waits);
  expect(order).toEqual(Array.from({ length: 20 }, (_, i) => `w${String(i).padStart(2, "0")}`));
  for (let i = 1; i < fences.length; i += 1) expect(fences[i]! > fences[i - 1]!).toBe(true);

  // The overview describes the fleet (docs/decisions/0071): every instance reports the
  // same totals, all 21 grants, whichever instance made them.
  const agreed = await eventually(async () => {
    const overviews = await Promise.all(
      direct.map((client) => client.stats.overview.query({ windowSec: 300 })),
    );
    return overviews.every((overview) => overview.granted === 21);
  }, 15_000);
  expect(agreed).toBe(true);
});

it("refuses a try on a free key while a waiter queues on another instance, and serves that waiter", async () => {
  const tenant = await fleet.tenant();
  const direct = fleet.instances.map((instance) => fleetClient(instance.url, tenant.key, "ops"));
  const resource = await fairResource(direct[0]!);
  const key = { resource, businessKey: `free-${uid()}` };
  const holder = await direct[0]!.lock.acquire.mutate({ ...key, ownerId: "holder" });
  if (!holder.granted) throw new Error("expected a grant");
  // A place ahead of everyone that is kept but never takes the key: a waiter on a stalled
  // instance, as the store sees it (it renews its place and is not woken).
  const stalled = fleet.instances[0]!.server!.services.locks;
  const policy = { degrade: true, localFallback: "deny", waitReplicas: 0 } as const;
  const ghost = { clientId: "ghost", ownerId: "ghost" };
  const ghostTry = await stalled.acquire(
    { ...key, holder: ghost, leaseMs: 1_000, fair: { waiterId: "ghost", heartbeatMs: 20_000 } },
    policy,
  );
  expect(ghostTry.granted).toBe(false);

  const waiter = fleetClient(fleet.instances[1]!.url, tenant.key, "waiter");
  let granted = false;
  const waiting = waiter.lock.acquire
    .mutate({ ...key, ownerId: "waiter", waitMs: 30_000 })
    .then((reply) => {
      granted = reply.granted;
      return reply;
    });
  expect(
    await eventually(
      async () => (await listed(direct, resource, key.businessKey))[1]!.length === 1,
    ),
  ).toBe(true);
  await direct[0]!.lock.release.mutate({ ...key, lockId: holder.lockId, tier: holder.tier });

  // The key is free now, but two places queue: a try on the third instance is refused.
  const tryer = fleetClient(fleet.instances[2]!.url, tenant.key, "tryer");
  const refused = await tryer.lock.acquire.mutate({ ...key, ownerId: "tryer" });
  expect(refused.granted).toBe(false);
  expect(await stalled.inspect(key)).toBeNull();
  expect(granted).toBe(false);

  // The stalled place goes away: the waiter behind it gets the key.
  expect(await stalled.leaveQueue({ ...key, waiterId: "ghost" })).toBe(true);
  const grant = await waiting;
  if (!grant.granted) throw new Error("expected the waiter's grant");
  await waiter.lock.release.mutate({ ...key, lockId: grant.lockId, tier: grant.tier });
  expect((await tryer.lock.acquire.mutate({ ...key, ownerId: "tryer" })).granted).toBe(true);
});

it("holds a tenant's request quota for the fleet, not per instance", async () => {
  const rate = 10;
  const tenant = await fleet.tenant(rate);
  // First contact on each instance, then let the shared bucket fill up again.
  for (const instance of fleet.instances) {
    await fleetClient(instance.url, tenant.key, "warm").resource.list.query({});
  }
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const client = fleetClient(fleet.proxy.url, tenant.key, "quota");
  const started = performance.now();
  let admitted = 0;
  // Through the proxy: consecutive calls land on the three instances in turn.
  for (let i = 0; i < 60; i += 1) {
    admitted += await client.resource.list.query({}).then(
      () => 1,
      () => 0,
    );
  }
  const elapsedSec = (performance.now() - started) / 1_000;
  // Per instance this would be at least 3 × (rate + rate × elapsed). Shared: one burst plus
  // the refill, plus per instance one leased batch (50 ms of the rate) and one call decided
  // locally while its first lease is asked for (decision 0101).
  const batch = Math.ceil(rate * 0.05);
  expect(admitted).toBeGreaterThanOrEqual(rate);
  expect(admitted).toBeLessThanOrEqual(rate + Math.ceil(rate * elapsedSec) + 3 * (batch + 1));
});

it("a waiter keeps its place while the key stays held longer than a place lives without renewal", async () => {
  const tenant = await fleet.tenant();
  const direct = fleet.instances.map((instance) => fleetClient(instance.url, tenant.key, "ops"));
  const resource = await fairResource(direct[0]!);
  const key = { resource, businessKey: `long-${uid()}` };
  const holder = await direct[0]!.lock.acquire.mutate({
    ...key,
    ownerId: "holder",
    leaseMs: 20_000,
  });
  if (!holder.granted) throw new Error("expected a grant");
  const waiter = fleetClient(fleet.instances[1]!.url, tenant.key, "waiter");
  let settled = false;
  const waiting = waiter.lock.acquire
    .mutate({ ...key, ownerId: "waiter", waitMs: 30_000 })
    .finally(() => (settled = true));
  expect(
    await eventually(
      async () => (await listed(direct, resource, key.businessKey))[1]!.length === 1,
    ),
  ).toBe(true);
  // A place behind the waiter that lives 20 s without renewal.
  const locks = fleet.instances[2]!.server!.services.locks;
  const policy = { degrade: true, localFallback: "deny", waitReplicas: 0 } as const;
  const behind = { clientId: "behind", ownerId: "behind" };
  await locks.acquire(
    { ...key, holder: behind, leaseMs: 1_000, fair: { waiterId: "behind", heartbeatMs: 20_000 } },
    policy,
  );
  // Longer than a place lives without renewal (FAIR_HEARTBEAT_MS, 6 s): only the waiter's
  // own re-checks keep it ahead of "behind".
  await new Promise((resolve) => setTimeout(resolve, 8_000));
  expect(settled).toBe(false);
  await direct[0]!.lock.release.mutate({ ...key, lockId: holder.lockId, tier: holder.tier });
  // Served at once, not after "behind" gives up its place.
  expect(await eventually(() => Promise.resolve(settled), 5_000)).toBe(true);
  expect(await locks.leaveQueue({ ...key, waiterId: "behind" })).toBe(true);
  expect((await waiting).granted).toBe(true);
});

it("a wait that times out or is cancelled gives its place up at once", async () => {
  const tenant = await fleet.tenant();
  const direct = fleet.instances.map((instance) => fleetClient(instance.url, tenant.key, "ops"));
  const resource = await fairResource(direct[0]!);
  const key = { resource, businessKey: `leave-${uid()}` };
  // A place at the head that outlives both waits, queued while the key was held.
  const holder = await direct[0]!.lock.acquire.mutate({ ...key, ownerId: "holder" });
  if (!holder.granted) throw new Error("expected a grant");
  const locks = fleet.instances[0]!.server!.services.locks;
  const policy = { degrade: true, localFallback: "deny", waitReplicas: 0 } as const;
  const head = { clientId: "head", ownerId: "head" };
  const placed = await locks.acquire(
    { ...key, holder: head, leaseMs: 1_000, fair: { waiterId: "head", heartbeatMs: 20_000 } },
    policy,
  );
  expect(placed.granted).toBe(false);
  await direct[0]!.lock.release.mutate({ ...key, lockId: holder.lockId, tier: holder.tier });
  const timedOut = fleetClient(fleet.instances[1]!.url, tenant.key, "timed-out");
  await expect(
    timedOut.lock.acquire.mutate({ ...key, ownerId: "timed-out", waitMs: 1_000 }),
  ).rejects.toThrow();
  const cancelled = fleetClient(fleet.instances[2]!.url, tenant.key, "cancelled");
  const waitId = `cancel-${uid()}`;
  const cancelledWait = cancelled.lock.acquire
    .mutate({ ...key, ownerId: "cancelled", waitMs: 30_000, waitId })
    .then(
      () => "granted",
      () => "ended",
    );
  expect(
    await eventually(
      async () => (await listed(direct, resource, key.businessKey))[2]!.length === 1,
    ),
  ).toBe(true);
  expect((await cancelled.lock.cancelWait.mutate({ waitId })).cancelled).toBe(true);
  expect(await cancelledWait).toBe("ended");
  // Only the head's place is left: once it goes, a try is served — the two places given
  // up would otherwise live on for up to 6 s after their last renewal.
  expect(await locks.leaveQueue({ ...key, waiterId: "head" })).toBe(true);
  expect((await direct[0]!.lock.acquire.mutate({ ...key, ownerId: "tryer" })).granted).toBe(true);
});

it("keeps arrival order across instances on the MySQL tier too", async () => {
  const services = fleet.instances.map((instance) => instance.server!.services);
  await services[0]!.locks.override("mysql", "fleet-test", "fair order on MySQL");
  try {
    expect(
      await eventually(() => Promise.resolve(services.every((s) => s.locks.tier === "mysql"))),
    ).toBe(true);
    const tenant = await fleet.tenant();
    const direct = fleet.instances.map((instance) => fleetClient(instance.url, tenant.key, "ops"));
    const resource = await fairResource(direct[0]!);
    const key = { resource, businessKey: `mysql-${uid()}` };
    const first = await direct[0]!.lock.acquire.mutate({ ...key, ownerId: "holder" });
    if (!first.granted) throw new Error("expected a grant");
    expect(first.tier).toBe("mysql");
    const order: string[] = [];
    const waits: Promise<void>[] = [];
    for (let i = 0; i < 6; i += 1) {
      const ownerId = `m${i}`;
      // Arrivals alternate over the instances: m0 on the third, m1 on the second, ...
      const client = fleetClient(fleet.instances[2 - (i % 3)]!.url, tenant.key, ownerId);
      waits.push(
        client.lock.acquire.mutate({ ...key, ownerId, waitMs: 30_000 }).then(async (grant) => {
          if (!grant.granted) throw new Error(`${ownerId} was refused`);
          order.push(ownerId);
          await client.lock.release.mutate({ ...key, lockId: grant.lockId, tier: grant.tier });
        }),
      );
      expect(
        await eventually(
          async () => (await listed(direct, resource, key.businessKey)).flat().length === i + 1,
        ),
      ).toBe(true);
    }
    await direct[1]!.lock.release.mutate({ ...key, lockId: first.lockId, tier: first.tier });
    await Promise.all(waits);
    expect(order).toEqual(["m0", "m1", "m2", "m3", "m4", "m5"]);
  } finally {
    await services[0]!.locks.override(null, "fleet-test", "done");
  }
});
