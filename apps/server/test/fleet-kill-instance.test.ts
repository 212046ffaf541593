// Issue 14: kill -9 one of three instances under load. No key is granted twice and no
// fence goes down; the waiter the dead instance held a place for stops blocking the queue
// (its place lapses) and the caller resumes on another instance; a lock granted through the
// dead instance is renewed through another one.
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  eventually,
  fleetClient,
  runLockLoad,
  startChildInstance,
  startFleet,
  type ChildInstance,
  type Fleet,
  type FleetClient,
  type LoadReport,
} from "./support/fleet.js";
import { uid } from "./support/harness.js";

let fleet: Fleet;
let victim: ChildInstance;

beforeAll(async () => {
  fleet = await startFleet(2);
  victim = await startChildInstance(fleet);
  fleet.proxy.setTargets([
    ...fleet.instances.map((instance) => ({ host: "127.0.0.1", port: instance.port })),
    { host: "127.0.0.1", port: victim.port },
  ]);
}, 180_000);
afterAll(async () => {
  await victim?.kill9();
  await fleet?.close();
});

async function fairResource(client: FleetClient, name: string): Promise<void> {
  await client.resource.create.mutate({
    name,
    defaultLeaseMs: 5_000,
    maxLeaseMs: 30_000,
    maxRenewals: null,
    expectedHoldMs: null,
    degrade: true,
    localFallback: "deny",
    fair: true,
    waitReplicas: 0,
    description: "kill -9",
  });
}

it("kill -9 of one instance under load: no double grant, its waiter resumes elsewhere, its lock is renewed elsewhere", async () => {
  const tenant = await fleet.tenant();
  const [a, b] = fleet.instances.map((instance) => fleetClient(instance.url, tenant.key, "ops"));
  const resource = `kill:${uid()}`;
  const loadResource = `kill-load:${uid()}`;
  await fairResource(a!, resource);
  await fairResource(a!, loadResource);

  // A lock taken through the victim, as an SDK connected to it holds it.
  const viaVictim = fleetClient(victim.url, tenant.key, "sdk");
  const held = await viaVictim.lock.acquire.mutate({
    resource,
    businessKey: "held",
    ownerId: "sdk",
    leaseMs: 8_000,
  });
  if (!held.granted) throw new Error("expected a grant");

  // A queue: the holder (via a), then w1 waiting on the victim, then w2 on a.
  const queueKey = { resource, businessKey: "queue" };
  const first = await a!.lock.acquire.mutate({ ...queueKey, ownerId: "holder", leaseMs: 20_000 });
  if (!first.granted) throw new Error("expected a grant");
  const w1OnVictim = viaVictim.lock.acquire.mutate({ ...queueKey, ownerId: "w1", waitMs: 30_000 });
  const victimSettled = w1OnVictim.then(
    () => "granted",
    () => "failed",
  );
  expect(
    await eventually(async () =>
      (await viaVictim.holder.waiters.query(queueKey)).waiters.some((w) => w.ownerId === "w1"),
    ),
  ).toBe(true);
  const order: string[] = [];
  const w2Client = fleetClient(fleet.instances[0]!.url, tenant.key, "w2");
  const w2 = w2Client.lock.acquire
    .mutate({ ...queueKey, ownerId: "w2", waitMs: 30_000 })
    .then(async (grant) => {
      if (!grant.granted) throw new Error("w2 refused");
      order.push("w2");
      await w2Client.lock.release.mutate({ ...queueKey, lockId: grant.lockId, tier: grant.tier });
    });
  expect(
    await eventually(async () =>
      (await a!.holder.waiters.query(queueKey)).waiters.some((w) => w.ownerId === "w2"),
    ),
  ).toBe(true);

  // Load through the proxy over all three instances.
  let stop = false;
  const load = runLockLoad({
    baseUrl: fleet.proxy.url,
    apiKey: tenant.key,
    resource: loadResource,
    keys: ["k0", "k1", "k2"],
    workers: 6,
    stop: () => stop,
  });
  let report: LoadReport;
  try {
    await new Promise((resolve) => setTimeout(resolve, 500));
    await victim.kill9();
    // w1's call died with its instance; its caller asks again, through the balancer.
    expect(await victimSettled).toBe("failed");
    const w1Client = fleetClient(fleet.proxy.url, tenant.key, "w1");
    const w1 = w1Client.lock.acquire
      .mutate({ ...queueKey, ownerId: "w1", waitMs: 30_000 })
      .then(async (grant) => {
        if (!grant.granted) throw new Error("w1 refused");
        order.push("w1");
        await w1Client.lock.release.mutate({ ...queueKey, lockId: grant.lockId, tier: grant.tier });
      });

    // The lock granted through the dead instance is renewed through another one: same
    // grant, same fence, a fresh lease.
    const renewed = await b!.lock.extend.mutate({
      resource,
      businessKey: "held",
      lockId: held.lockId,
      tier: held.tier,
      leaseMs: 8_000,
    });
    expect(renewed.lockId).toBe(held.lockId);
    expect(renewed.fence).toBe(held.fence);

    // The holder lets go: w2 goes first (w1's old place lapses, its new one is behind w2).
    await b!.lock.release.mutate({ ...queueKey, lockId: first.lockId, tier: first.tier });
    await Promise.all([w1, w2]);
    expect(order).toEqual(["w2", "w1"]);
  } finally {
    stop = true;
    report = await load;
  }
  expect(report.doubleGrants).toEqual([]);
  expect(report.fenceRegressions).toEqual([]);
  expect(report.lostReleases).toEqual([]);
  expect(report.grants).toBeGreaterThan(0);

  const inspected = await a!.lock.inspect.query({ resource, businessKey: "held" });
  expect(inspected.lease?.lockId).toBe(held.lockId);
  await a!.lock.release.mutate({
    resource,
    businessKey: "held",
    lockId: held.lockId,
    tier: held.tier,
  });
  // Grants whose reply died with the victim expire with their lease: nothing stays held.
  const locks = fleet.instances[1]!.server!.services.locks;
  const drained = await eventually(async () => {
    for (const businessKey of ["k0", "k1", "k2"]) {
      if (await locks.inspect({ resource: loadResource, businessKey })) return false;
    }
    return true;
  }, 15_000);
  expect(drained).toBe(true);
}, 120_000);
