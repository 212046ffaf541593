// Issue 14: three instances started at the same moment on an empty database all come up,
// and a rolling restart of all three under load loses no grant.
import { afterAll, beforeAll, expect, it } from "vitest";
import { verifyPassword } from "../src/auth/password.js";
import {
  eventually,
  fleetClient,
  runLockLoad,
  startFleet,
  type Fleet,
  type LoadReport,
} from "./support/fleet.js";
import { uid } from "./support/harness.js";

let fleet: Fleet;

beforeAll(async () => {
  // startFleet starts the three at once (Promise.allSettled) and fails if any one fails.
  fleet = await startFleet(3);
});
afterAll(async () => {
  await fleet?.close();
});

async function healthy(url: string): Promise<boolean> {
  return fetch(`${url}/readyz`).then(
    (response) => response.ok,
    () => false,
  );
}

it("three instances started at once on an empty database: all ready, one admin, one tier state", async () => {
  for (const instance of fleet.instances) expect(await healthy(instance.url)).toBe(true);
  const services = fleet.instances.map((instance) => instance.server!.services);
  const admins = await services[0]!.prisma.operator.findMany({
    select: { username: true, role: true, passwordHash: true },
  });
  expect(admins.map(({ username, role }) => ({ username, role }))).toEqual([
    { username: "fleet-admin", role: "admin" },
  ]);
  expect(await verifyPassword("a long enough admin password", admins[0]!.passwordHash)).toBe(true);
  // One shared tier state: every instance follows the same version and epoch, on Redis.
  const snapshots = services.map((s) => s.locks.snapshot());
  for (const snapshot of snapshots) {
    expect(snapshot.tier).toBe("redis");
    expect(snapshot.version).toBe(snapshots[0]!.version);
    expect(snapshot.epoch).toBe(snapshots[0]!.epoch);
  }
});

it("a rolling restart of all three under load loses no grant, grants no key twice, never lowers a fence", async () => {
  const tenant = await fleet.tenant();
  const admin = fleetClient(fleet.instances[0]!.url, tenant.key, "ops");
  const resource = `roll:${uid()}`;
  await admin.resource.create.mutate({
    name: resource,
    defaultLeaseMs: 5_000,
    maxLeaseMs: 30_000,
    maxRenewals: null,
    expectedHoldMs: null,
    degrade: true,
    localFallback: "deny",
    fair: true,
    waitReplicas: 0,
    description: "rolling restart",
  });
  const keys = ["k0", "k1", "k2"];
  let stop = false;
  const load = runLockLoad({
    baseUrl: fleet.proxy.url,
    apiKey: tenant.key,
    resource,
    keys,
    workers: 6,
    stop: () => stop,
  });
  let report: LoadReport;
  try {
    // Each instance in turn: graceful stop, start again on its port, ready before the next.
    for (let index = 0; index < fleet.instances.length; index += 1) {
      await new Promise((resolve) => setTimeout(resolve, 400));
      await fleet.stop(index);
      await fleet.start(index);
      expect(await eventually(() => healthy(fleet.instances[index]!.url), 30_000)).toBe(true);
    }
    await new Promise((resolve) => setTimeout(resolve, 400));
  } finally {
    stop = true;
    report = await load;
  }
  expect(report.doubleGrants).toEqual([]);
  expect(report.fenceRegressions).toEqual([]);
  expect(report.lostReleases).toEqual([]);
  expect(report.grants).toBeGreaterThan(0);
  // Nothing is left held: every grant was released (none waits for its lease to run out).
  const locks = fleet.instances[1]!.server!.services.locks;
  for (const businessKey of keys) expect(await locks.inspect({ resource, businessKey })).toBeNull();
});
