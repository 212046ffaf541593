// Liveness-bound release (docs/decisions/0150) on real instances sharing one Redis and one
// MariaDB: an SDK client whose lock connection is gone from the whole fleet for a resource's
// releaseOnDisconnectMs loses its locks on that resource at once (audited, with a larger
// fence for the next holder, its own fenced writes and renewals refused); a reconnect to
// another instance inside the grace keeps them; a killed instance's clients are noticed
// through its lapsed record; resources without the setting keep TTL-only behaviour.
import { createConnection } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { policyFromFlags } from "../src/cli/policy-flags.js";
import { UsageError } from "../src/cli/cli-io.js";
import { LIVENESS_ACTOR } from "../src/liveness/liveness-monitor.js";
import { LOCK_SUBPROTOCOL } from "../src/protocol/wire.js";
import {
  eventually,
  fleetClient,
  startChildInstance,
  startFleet,
  type ChildInstance,
  type Fleet,
  type FleetClient,
} from "./support/fleet.js";
import { uid } from "./support/harness.js";

let fleet: Fleet;
let tenant: { id: string; key: string };
let admin: FleetClient;

beforeAll(async () => {
  fleet = await startFleet(2);
  tenant = await fleet.tenant();
  admin = fleetClient(fleet.instances[0]!.url, tenant.key, "admin");
}, 180_000);
afterAll(async () => {
  await fleet?.close();
});

type Entry = [number, 0 | 1 | "released" | "limits", unknown];
interface Lease {
  granted: boolean;
  lockId: string;
  fence: string;
  tier: string;
}

/** A bare SDK-like client of the batched lock protocol (hello with clientId, then frames). */
async function lockClient(baseUrl: string, clientId: string, apiKey = tenant.key) {
  const ws = new WebSocket(`${baseUrl.replace("http", "ws")}/trpc`, LOCK_SUBPROTOCOL);
  const entries: Entry[] = [];
  ws.on("message", (data: Buffer) => {
    for (const entry of JSON.parse(data.toString("utf8")) as Entry[]) entries.push(entry);
  });
  ws.on("error", () => undefined);
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  ws.send(JSON.stringify({ hello: { apiKey, clientId } }));
  let nextId = 1;
  const send = async (op: string, input: unknown): Promise<Entry> => {
    const id = nextId++;
    ws.send(JSON.stringify([[id, op, input]]));
    const deadline = Date.now() + 15_000;
    for (;;) {
      const found = entries.find((entry) => entry[0] === id);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no answer to ${op} within 15 s`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return {
    ws,
    async acquire(resource: string, businessKey: string, leaseMs = 60_000): Promise<Lease> {
      const [, status, reply] = await send("acquire", {
        resource,
        businessKey,
        ownerId: "task",
        leaseMs,
      });
      if (status !== 0 || !(reply as Lease).granted) {
        throw new Error(`not granted: ${JSON.stringify(reply)}`);
      }
      return reply as Lease;
    },
    /** Renews one lease; the error's Warden code when refused. */
    async renew(resource: string, businessKey: string, lease: Lease): Promise<string | number> {
      const [, , reply] = await send("renew", {
        items: [{ resource, businessKey, lockId: lease.lockId, tier: lease.tier, leaseMs: 60_000 }],
      });
      const [result] = (
        reply as { results: { ttlMs?: number; error?: { data: { wardenCode: string } } }[] }
      ).results;
      return result!.error ? result!.error.data.wardenCode : result!.ttlMs!;
    },
    /** Closes the socket and waits until the server saw it close. */
    async close(): Promise<void> {
      if (ws.readyState === ws.CLOSED) return;
      const closed = new Promise((resolve) => ws.once("close", resolve));
      ws.close();
      await closed;
    },
  };
}

async function resource(releaseOnDisconnectMs: number | null, via = admin): Promise<string> {
  const name = `live-${uid()}`;
  await via.resource.create.mutate({
    name,
    defaultLeaseMs: 10_000,
    maxLeaseMs: 60_000,
    maxRenewals: null,
    expectedHoldMs: null,
    releaseOnDisconnectMs,
    degrade: true,
    localFallback: "deny",
    fair: false,
    waitReplicas: 0,
    description: "liveness",
  });
  return name;
}

async function leaseOf(name: string, businessKey: string, via = admin) {
  return (await via.lock.inspect.query({ resource: name, businessKey })).lease;
}

function prisma() {
  return fleet.instances[0]!.server!.services.prisma;
}

/** The audit row of a hold, once the audit writer has flushed its end. */
async function endedHold(lockId: string, limitMs = 15_000) {
  let row: Awaited<ReturnType<ReturnType<typeof prisma>["lockHold"]["findUnique"]>> = null;
  await eventually(async () => {
    row = await prisma().lockHold.findUnique({ where: { lockId } });
    return row?.endType != null;
  }, limitMs);
  return row as unknown as {
    endType: string | null;
    actor: string | null;
    reason: string | null;
    clientId: string | null;
  } | null;
}

describe("liveness-bound release", () => {
  it("releases a gone client's locks after the grace: audited, a larger fence next, its fenced writes and renewals refused", async () => {
    const name = await resource(300);
    const ttlOnly = await resource(null);
    const clientId = `gone-${uid()}`;
    const old = await lockClient(fleet.instances[0]!.url, clientId);
    const lease = await old.acquire(name, "k");
    const kept = await old.acquire(ttlOnly, "k");

    // The old holder's fenced write while it holds the lock (a ledger guarded by fence).
    const db = await createConnection(fleet.db.url);
    const table = `ledger_${uid()}`;
    await db.query(
      `CREATE TABLE ${table} (id INT PRIMARY KEY, fence BIGINT UNSIGNED NOT NULL, value VARCHAR(32) NOT NULL)`,
    );
    await db.query(`INSERT INTO ${table} VALUES (1, 0, 'initial')`);
    const fencedWrite = async (fence: string, value: string) => {
      const [result] = await db.query(
        `UPDATE ${table} SET value = ?, fence = ? WHERE id = 1 AND fence < ?`,
        [value, fence, fence],
      );
      return (result as { affectedRows: number }).affectedRows;
    };
    expect(await fencedWrite(lease.fence, "old holder")).toBe(1);

    await old.close();
    // Released long before its 60 s lease would have run out.
    expect(await eventually(async () => (await leaseOf(name, "k")) === null, 15_000)).toBe(true);
    const hold = await endedHold(lease.lockId);
    expect(hold).toMatchObject({ endType: "force-released", actor: LIVENESS_ACTOR, clientId });
    expect(hold?.reason).toContain("holder disconnected");
    expect(hold?.reason).toContain(clientId);
    // The resource without releaseOnDisconnectMs keeps the same client's lock: TTL only.
    expect((await leaseOf(ttlOnly, "k"))?.lockId).toBe(kept.lockId);

    // The next holder gets a larger fence and its write lands; the old holder's is refused.
    const next = await lockClient(fleet.instances[1]!.url, `next-${uid()}`);
    const newer = await next.acquire(name, "k");
    expect(BigInt(newer.fence)).toBeGreaterThan(BigInt(lease.fence));
    expect(await fencedWrite(newer.fence, "new holder")).toBe(1);
    expect(await fencedWrite(lease.fence, "old holder, late")).toBe(0);
    const [[row]] = (await db.query(`SELECT value FROM ${table} WHERE id = 1`)) as unknown as [
      { value: string }[],
    ];
    expect(row!.value).toBe("new holder");
    await db.query(`DROP TABLE ${table}`);
    await db.end();

    // The old client comes back: its renewal is refused, the lease is somebody else's.
    const back = await lockClient(fleet.instances[0]!.url, clientId);
    expect(await back.renew(name, "k", lease)).toBe("NOT_HOLDER");
    expect(typeof (await back.renew(ttlOnly, "k", kept))).toBe("number");
    await back.close();
    await next.close();
  }, 120_000);

  it("a reconnect to another instance inside the grace keeps the locks, still renewable", async () => {
    const name = await resource(4_000);
    const clientId = `back-${uid()}`;
    const client = await lockClient(fleet.instances[0]!.url, clientId);
    const lease = await client.acquire(name, "k");
    // A control client that disconnects at the same moment and stays away.
    const goneId = `control-${uid()}`;
    const control = await lockClient(fleet.instances[0]!.url, goneId);
    const controlLease = await control.acquire(name, "c");

    await client.close();
    await control.close();
    // Fails over to the other instance at once (as the SDK does) and renews there.
    const moved = await lockClient(fleet.instances[1]!.url, clientId);
    expect(typeof (await moved.renew(name, "k", lease))).toBe("number");

    // The control's grace passes: its lock goes; the reconnected client's stays.
    expect(await eventually(async () => (await leaseOf(name, "c")) === null, 20_000)).toBe(true);
    expect((await endedHold(controlLease.lockId))?.actor).toBe(LIVENESS_ACTOR);
    expect((await leaseOf(name, "k"))?.lockId).toBe(lease.lockId);
    expect(typeof (await moved.renew(name, "k", lease))).toBe("number");

    // Two connections of one client on two instances: closing one keeps the locks.
    const second = await lockClient(fleet.instances[0]!.url, clientId);
    expect(typeof (await second.renew(name, "k", lease))).toBe("number");
    await second.close();
    const control2 = await lockClient(fleet.instances[0]!.url, `control2-${uid()}`);
    const control2Lease = await control2.acquire(name, "c2");
    await control2.close();
    expect(await eventually(async () => (await leaseOf(name, "c2")) === null, 20_000)).toBe(true);
    expect((await endedHold(control2Lease.lockId))?.actor).toBe(LIVENESS_ACTOR);
    expect((await leaseOf(name, "k"))?.lockId).toBe(lease.lockId);
    await moved.close();
    // Two graces, two audit flushes and five connections one after another: on a loaded CI
    // box this runs well past the suite's 30 s default.
  }, 120_000);

  it("a lock taken on a resource registered just before its holder left is released, whatever the sweeper had cached", async () => {
    // The sweeper caches a tenant's opted-in resources for a second. A client that locks a
    // resource registered after that read and leaves must not be forgotten on the cached list
    // (whose longest grace, 200 ms here, passes first): its lock would then live to its TTL.
    const other = await fleet.tenant();
    const via = fleetClient(fleet.instances[0]!.url, other.key, "admin");
    const short = await resource(200, via);
    for (let round = 0; round < 2; round += 1) {
      // A client on the short resource leaves: once its lock is gone, the sweeper has just
      // read (or used its cached copy of) the tenant's resources.
      const primer = await lockClient(fleet.instances[0]!.url, `primer-${uid()}`, other.key);
      await primer.acquire(short, `p${round}`);
      await primer.close();
      expect(
        await eventually(async () => (await leaseOf(short, `p${round}`, via)) === null, 15_000),
      ).toBe(true);
      // At once: a new resource with a longer grace, locked by a client that leaves.
      const fresh = await resource(1_500, via);
      const leaver = await lockClient(fleet.instances[0]!.url, `leaver-${uid()}`, other.key);
      const lease = await leaver.acquire(fresh, "k");
      await leaver.close();
      expect(await eventually(async () => (await leaseOf(fresh, "k", via)) === null, 20_000)).toBe(
        true,
      );
      expect((await endedHold(lease.lockId))?.actor).toBe(LIVENESS_ACTOR);
    }
  }, 120_000);

  it("a killed instance's clients are noticed through its lapsed record and released by another", async () => {
    let victim: ChildInstance | null = null;
    try {
      victim = await startChildInstance(fleet);
      const name = await resource(500);
      const clientId = `orphan-${uid()}`;
      const client = await lockClient(victim.url, clientId);
      const lease = await client.acquire(name, "k");
      await victim.kill9();
      victim = null;
      // No close event reached any live instance: the lapsed record (5 s) tells them.
      expect(await eventually(async () => (await leaseOf(name, "k")) === null, 40_000)).toBe(true);
      const hold = await endedHold(lease.lockId);
      expect(hold).toMatchObject({ endType: "force-released", actor: LIVENESS_ACTOR, clientId });
    } finally {
      await victim?.kill9();
    }
  }, 180_000);

  it("refuses bad releaseOnDisconnectMs values with a typed error and changes nothing", async () => {
    for (const bad of [-1, 1.5, 60_001, "100", true]) {
      const name = `live-bad-${uid()}`;
      const error = await admin.resource.create
        .mutate({
          name,
          defaultLeaseMs: 10_000,
          maxLeaseMs: 60_000,
          maxRenewals: null,
          expectedHoldMs: null,
          releaseOnDisconnectMs: bad as number,
          degrade: true,
          localFallback: "deny",
          fair: false,
          waitReplicas: 0,
          description: "",
        })
        .then(
          () => null,
          (e: unknown) =>
            e as {
              data?: {
                code?: string;
                wardenCode?: string | null;
                details?: { field?: string } | null;
                fieldErrors?: Record<string, string[]> | null;
              };
            },
        );
      expect(error?.data?.code).toBe("BAD_REQUEST");
      expect(error?.data?.wardenCode).toBe("INVALID_ARGUMENT");
      expect(error?.data?.fieldErrors?.["releaseOnDisconnectMs"]?.length).toBe(1);
      expect(await prisma().resource.findUnique({ where: { name } })).toBeNull();
    }
    const name = await resource(1_000);
    for (const bad of [-5, 2.5, 60_001]) {
      const error = await admin.resource.update
        .mutate({ name, patch: { releaseOnDisconnectMs: bad } })
        .then(
          () => null,
          (e: unknown) => e as { data?: { code?: string } },
        );
      expect(error?.data?.code).toBe("BAD_REQUEST");
    }
    expect((await admin.resource.get.query({ name })).releaseOnDisconnectMs).toBe(1_000);
    // An update that leaves it out keeps it; null turns it off; the bounds are allowed.
    await admin.resource.update.mutate({ name, patch: { description: "edited" } });
    expect((await admin.resource.get.query({ name })).releaseOnDisconnectMs).toBe(1_000);
    await admin.resource.update.mutate({ name, patch: { releaseOnDisconnectMs: 0 } });
    expect((await admin.resource.get.query({ name })).releaseOnDisconnectMs).toBe(0);
    await admin.resource.update.mutate({ name, patch: { releaseOnDisconnectMs: 60_000 } });
    await admin.resource.update.mutate({ name, patch: { releaseOnDisconnectMs: null } });
    expect((await admin.resource.get.query({ name })).releaseOnDisconnectMs).toBeNull();
    // Registered without the field: TTL only, as before.
    const plain = `live-plain-${uid()}`;
    await admin.resource.create.mutate({
      name: plain,
      defaultLeaseMs: 10_000,
      maxLeaseMs: 60_000,
      maxRenewals: null,
      expectedHoldMs: null,
      degrade: true,
      localFallback: "deny",
      fair: false,
      waitReplicas: 0,
      description: "",
    });
    expect((await admin.resource.get.query({ name: plain })).releaseOnDisconnectMs).toBeNull();
    // warden-admin's flag: integer or none, anything else a usage error.
    expect(policyFromFlags({ "release-on-disconnect-ms": "2500" })).toEqual({
      releaseOnDisconnectMs: 2_500,
    });
    expect(policyFromFlags({ "release-on-disconnect-ms": "none" })).toEqual({
      releaseOnDisconnectMs: null,
    });
    expect(() => policyFromFlags({ "release-on-disconnect-ms": "soon" })).toThrow(UsageError);
  });
});
