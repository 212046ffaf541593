import { createPool, type Pool } from "mysql2/promise";
import { afterAll, beforeAll, expect, it } from "vitest";
import { uid } from "./support/harness.js";
import {
  eventually,
  fleetClient,
  startFleet,
  type Fleet,
  type FleetClient,
} from "./support/fleet.js";

// The Redis lease mirror's counters on /metrics (docs/decisions/0220): what it wrote, and what
// it dropped when MySQL refused its batch, which a real server and a real MariaDB produce
// here by taking the mirror's table away for a moment.

let fleet: Fleet;
let pool: Pool;
let api: FleetClient;
let resource: string;

beforeAll(async () => {
  fleet = await startFleet(1);
  pool = createPool({ uri: fleet.db.url, connectionLimit: 1 });
  const tenant = await fleet.tenant();
  api = fleetClient(fleet.instances[0]!.url, tenant.key, "mirror-test");
  resource = `mirror:${uid()}`;
  await api.resource.create.mutate({
    name: resource,
    defaultLeaseMs: 30_000,
    maxLeaseMs: 60_000,
    maxRenewals: null,
    expectedHoldMs: null,
    degrade: true,
    localFallback: "deny",
    fair: false,
    waitReplicas: 0,
    description: "lease mirror metrics",
  });
});

afterAll(async () => {
  await pool?.end();
  await fleet?.close();
});

async function counter(name: string): Promise<number> {
  const response = await fetch(`${fleet.instances[0]!.url}/metrics`);
  const line = (await response.text()).split("\n").find((l) => l.startsWith(`${name} `));
  if (line === undefined) throw new Error(`${name} is not on /metrics`);
  return Number(line.slice(name.length + 1));
}

it("counts the lease changes the mirror wrote, and those it dropped while MySQL refused them", async () => {
  expect(await counter("warden_lease_mirror_dropped_total")).toBe(0);
  const first = await api.lock.acquire.mutate({
    resource,
    businessKey: "k1",
    ownerId: "o1",
    waitMs: 0,
  });
  expect(first.granted && first.tier).toBe("redis");
  expect(
    await eventually(async () => (await counter("warden_lease_mirror_writes_total")) >= 1),
  ).toBe(true);
  expect(await counter("warden_lease_mirror_dropped_total")).toBe(0);

  await pool.query("RENAME TABLE redis_lease_mirror TO redis_lease_mirror_away");
  try {
    // The grant does not wait for the mirror: it is granted while the mirror's batch fails.
    const second = await api.lock.acquire.mutate({
      resource,
      businessKey: "k2",
      ownerId: "o2",
      waitMs: 0,
    });
    expect(second.granted && second.tier).toBe("redis");
    expect(
      await eventually(async () => (await counter("warden_lease_mirror_dropped_total")) >= 1),
    ).toBe(true);
  } finally {
    await pool.query("RENAME TABLE redis_lease_mirror_away TO redis_lease_mirror");
  }
  const dropped = await counter("warden_lease_mirror_dropped_total");
  const written = await counter("warden_lease_mirror_writes_total");
  const third = await api.lock.acquire.mutate({
    resource,
    businessKey: "k3",
    ownerId: "o3",
    waitMs: 0,
  });
  expect(third.granted).toBe(true);
  expect(
    await eventually(async () => (await counter("warden_lease_mirror_writes_total")) > written),
  ).toBe(true);
  expect(await counter("warden_lease_mirror_dropped_total")).toBe(dropped);
});
