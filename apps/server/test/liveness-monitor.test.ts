// The liveness monitor's own rules (docs/decisions/0150) on real Redis and MariaDB, with two
// monitors standing for two instances and the sweep driven by hand: an instance whose record
// lapsed during a stall rewrites it at its next beat, so its clients are not released; the
// last connection closing starts the grace; a client connected on two instances is gone only
// when both have let go; resources of another tenant are never touched.
import { pino } from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Redis } from "ioredis";
import { LIVENESS_ACTOR, LivenessMonitor } from "../src/liveness/liveness-monitor.js";
import { eventually } from "./support/fleet.js";
import {
  registerResource,
  startHarness,
  uid,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";

let h: Harness;
let redis: Redis;
const monitors: LivenessMonitor[] = [];
// One sweeper for every test: it holds the sweeper's lease (the others never take it).
let sweeper: LivenessMonitor;

beforeAll(async () => {
  h = await startHarness();
  redis = new Redis(h.redis.url);
  sweeper = monitor(`s-${uid()}`);
});
afterAll(async () => {
  await Promise.allSettled(monitors.map((monitor) => monitor.close()));
  redis?.disconnect();
  await h?.close();
});

/** A monitor as instance `id` runs it; sweeps only when asked to (`sweepNow`). */
function monitor(id: string): LivenessMonitor {
  const made = new LivenessMonitor({
    redis: { mode: "standalone", url: h.redis.url },
    instanceId: id,
    locks: h.services.locks,
    hub: h.services.hub,
    prisma: h.prisma,
    logger: pino({ level: "silent" }),
    everyMs: 100,
    ttlMs: 500,
    sweepEveryMs: 3_600_000,
  });
  monitors.push(made);
  made.start();
  return made;
}

async function heldResource(
  tenant: TenantHandle,
  graceMs: number | null,
  clientId: string,
): Promise<{ name: string; lockId: string }> {
  const name = await registerResource(tenant, { maxLeaseMs: 60_000 });
  await tenant.caller().resource.update({ name, patch: { releaseOnDisconnectMs: graceMs } });
  const grant = await tenant
    .caller({ clientId })
    .lock.acquire({ resource: name, businessKey: "k", ownerId: "o", leaseMs: 60_000 });
  if (!grant.granted) throw new Error("expected a grant");
  return { name, lockId: grant.lockId };
}

async function held(tenant: TenantHandle, name: string): Promise<string | null> {
  const { lease } = await tenant.caller().lock.inspect({ resource: name, businessKey: "k" });
  return lease?.lockId ?? null;
}

const gone = (tenantId: string, clientId: string) =>
  redis.zscore("w:{live}:gone", `${tenantId}\n${clientId}`);

it("a stalled instance's record lapses and is swept, then its next beat restores it: nothing is released", async () => {
  const tenant = await h.tenant();
  const clientId = `stall-${uid()}`;
  const { name, lockId } = await heldResource(tenant, 200, clientId);
  const a = monitor(`a-${uid()}`);
  a.connected(tenant.id, clientId);
  expect(await eventually(async () => (await redis.exists(`w:{live}:up:${a.id}`)) === 1)).toBe(
    true,
  );

  // The stall: A's record is gone (as after 500 ms without a beat) and a sweep sees it.
  await redis.del(`w:{live}:up:${a.id}`);
  await sweeper.sweepNow();
  // A's next beat finds its record missing and rewrites it: the client is not gone any more.
  expect(await eventually(async () => (await gone(tenant.id, clientId)) === null, 5_000)).toBe(
    true,
  );
  await new Promise((resolve) => setTimeout(resolve, 400));
  await sweeper.sweepNow();
  expect(await held(tenant, name)).toBe(lockId);

  // Its last connection closes: after the grace the sweep releases the lock, audited.
  a.disconnected(tenant.id, clientId);
  expect(await eventually(async () => (await gone(tenant.id, clientId)) !== null)).toBe(true);
  expect(
    await eventually(async () => {
      await sweeper.sweepNow();
      return (await held(tenant, name)) === null;
    }, 10_000),
  ).toBe(true);
  expect(
    await eventually(async () => {
      const row = await h.prisma.lockHold.findUnique({ where: { lockId } });
      return row?.actor === LIVENESS_ACTOR && row.endType === "force-released";
    }),
  ).toBe(true);
  // The gone entry is forgotten once every grace of the tenant has passed.
  expect(
    await eventually(async () => {
      await sweeper.sweepNow();
      return (await gone(tenant.id, clientId)) === null;
    }),
  ).toBe(true);
});

it("connected on two instances: gone only once both let go; another tenant's same clientId is someone else", async () => {
  const tenant = await h.tenant();
  const other = await h.tenant();
  const clientId = `both-${uid()}`;
  const mine = await heldResource(tenant, 0, clientId);
  const theirs = await heldResource(other, 0, clientId);
  const a = monitor(`a-${uid()}`);
  const b = monitor(`b-${uid()}`);
  a.connected(tenant.id, clientId);
  b.connected(tenant.id, clientId);
  // Two connections on A, one closes: still connected on A.
  a.connected(tenant.id, clientId);
  a.disconnected(tenant.id, clientId);
  b.connected(other.id, clientId);
  await new Promise((resolve) => setTimeout(resolve, 300));
  a.disconnected(tenant.id, clientId);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await sweeper.sweepNow();
  // Still on B: nothing released.
  expect(await gone(tenant.id, clientId)).toBeNull();
  expect(await held(tenant, mine.name)).toBe(mine.lockId);

  b.disconnected(tenant.id, clientId);
  expect(
    await eventually(async () => {
      await sweeper.sweepNow();
      return (await held(tenant, mine.name)) === null;
    }, 10_000),
  ).toBe(true);
  // The other tenant's client of the same name is still connected on B and keeps its lock.
  await sweeper.sweepNow();
  expect(await held(other, theirs.name)).toBe(theirs.lockId);
});
