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

// The Redis lease mirror's counters on /metrics (docs/decisions/0220, 0221): what it wrote,
// its batches by outcome, what waits for the next batch, and that a batch MySQL refused is
// written once MySQL takes it. A real server and a real MariaDB, whose refusal comes from
// taking the mirror's table away for a moment.

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

const FAILED = 'warden_lease_mirror_batches_total{outcome="failed"}';
const OK = 'warden_lease_mirror_batches_total{outcome="ok"}';

async function mirrorRow(businessKey: string): Promise<string | null> {
  const [rows] = await pool.query(
    "SELECT lock_id AS lockId FROM redis_lease_mirror WHERE resource = ? AND business_key = ?",
    [resource, businessKey],
  );
  return (rows as { lockId: string }[])[0]?.lockId ?? null;
}

it("counts the mirror's writes and batches, and writes a refused grant once MySQL takes it", async () => {
  expect(await counter("warden_lease_mirror_dropped_total")).toBe(0);
  expect(await counter(FAILED)).toBe(0);
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
  expect(await counter(OK)).toBeGreaterThanOrEqual(1);

  await pool.query("RENAME TABLE redis_lease_mirror TO redis_lease_mirror_away");
  let second: Awaited<ReturnType<typeof api.lock.acquire.mutate>>;
  try {
    // The grant does not wait for the mirror: it is granted while the mirror's batch fails.
    second = await api.lock.acquire.mutate({
      resource,
      businessKey: "k2",
      ownerId: "o2",
      waitMs: 0,
    });
    expect(second.granted && second.tier).toBe("redis");
    expect(await eventually(async () => (await counter(FAILED)) >= 2)).toBe(true);
    // Kept for the next batch, not dropped.
    expect(await counter("warden_lease_mirror_pending")).toBeGreaterThanOrEqual(1);
    expect(await counter("warden_lease_mirror_dropped_total")).toBe(0);
  } finally {
    await pool.query("RENAME TABLE redis_lease_mirror_away TO redis_lease_mirror");
  }
  // The batch that works again writes the grant MySQL refused.
  expect(second.granted).toBe(true);
  if (!second.granted) return;
  expect(await eventually(async () => (await mirrorRow("k2")) === second.lockId)).toBe(true);
  expect(await counter("warden_lease_mirror_pending")).toBe(0);
  expect(await counter("warden_lease_mirror_dropped_total")).toBe(0);
});
