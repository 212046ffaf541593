import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpServerHandle } from "../src/http/server.js";
import {
  registerResource,
  startHarness,
  uid,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";
import { connectLockClient, serveHarness, type RenewResult } from "./support/lock-client.js";

// Permits in the lock socket's bulk `renew` command (docs/decisions/0162): items with
// `kind: "permit"` renew semaphore permit grants through the semaphore use case, each
// answering on its own beside lock items; real server, Redis and MariaDB.

let h: Harness;
let http: HttpServerHandle;
let tenant: TenantHandle;
let other: TenantHandle;

beforeAll(async () => {
  h = await startHarness();
  http = await serveHarness(h);
  tenant = await h.tenant();
  other = await h.tenant();
});
afterAll(async () => {
  await http?.close();
  await h?.close();
});

/** A bare client of the batched lock protocol. */
function connect(apiKey: string, clientId = "renew-client") {
  return connectLockClient(http.url, apiKey, clientId);
}

async function registerSemaphore(t: TenantHandle, maxRenewals: number | null = null) {
  const name = `sem:${uid()}`;
  await t.caller().resource.create({
    name,
    kind: "semaphore",
    permits: 5,
    defaultLeaseMs: 5_000,
    maxLeaseMs: 30_000,
    maxRenewals,
    expectedHoldMs: null,
    degrade: true,
    localFallback: "deny",
    fair: false,
    waitReplicas: 0,
    description: "renew test",
  });
  return name;
}

interface Granted {
  lockId: string;
  tier: string;
  fence: string;
}

async function takePermit(
  client: Awaited<ReturnType<typeof connect>>,
  resource: string,
  businessKey: string,
): Promise<Granted> {
  const [reply] = await client.send([
    "call",
    ["mutation", "semaphore.acquire", { resource, businessKey, ownerId: "o", leaseMs: 5_000 }],
  ]);
  expect(reply![1], JSON.stringify(reply![2])).toBe(0);
  return reply![2] as Granted;
}

async function permitsOf(resource: string, businessKey: string) {
  return (await tenant.caller().semaphore.inspect({ resource, businessKey })).holders;
}

describe("permits in the bulk renew command", () => {
  it("renews permits and locks of one command, each answering on its own", async () => {
    const semaphore = await registerSemaphore(tenant);
    const mutex = await registerResource(tenant, { maxLeaseMs: 30_000 });
    const client = await connect(tenant.key);
    const p1 = await takePermit(client, semaphore, "a");
    const p2 = await takePermit(client, semaphore, "a");
    const [lock] = await client.send([
      "acquire",
      { resource: mutex, businessKey: "m", ownerId: "o" },
    ]);
    const l = lock![2] as Granted;
    const [renewed] = await client.send([
      "renew",
      {
        items: [
          {
            resource: semaphore,
            businessKey: "a",
            lockId: p1.lockId,
            tier: p1.tier,
            leaseMs: 20_000,
            kind: "permit",
          },
          { resource: mutex, businessKey: "m", lockId: l.lockId, tier: l.tier, leaseMs: 20_000 },
          {
            resource: semaphore,
            businessKey: "a",
            lockId: "C".repeat(22),
            tier: p1.tier,
            kind: "permit",
          },
          {
            resource: semaphore,
            businessKey: "a",
            lockId: p2.lockId,
            tier: p2.tier,
            leaseMs: 25_000,
            kind: "permit",
          },
        ],
      },
    ]);
    expect(renewed![1]).toBe(0);
    const { results } = renewed![2] as { results: RenewResult[] };
    expect(results[0]!.ttlMs).toBeGreaterThan(15_000);
    expect(results[1]!.ttlMs).toBeGreaterThan(15_000);
    expect(results[2]!.error?.data.wardenCode).toBe("NOT_HOLDER");
    expect(results[3]!.ttlMs).toBeGreaterThan(20_000);
    const held = await permitsOf(semaphore, "a");
    expect(held.map((p) => [p.lockId, p.renewals]).sort()).toEqual(
      [
        [p1.lockId, 1],
        [p2.lockId, 1],
      ].sort(),
    );
    expect(held.find((p) => p.lockId === p1.lockId)!.expiresAt).toBe(results[0]!.expiresAt);
    client.ws.close();
  });

  it("kinds do not mix: a permit item on a mutex and a lock item on a semaphore are INVALID_ARGUMENT on kind, and change nothing", async () => {
    const semaphore = await registerSemaphore(tenant);
    const mutex = await registerResource(tenant);
    const client = await connect(tenant.key);
    const p = await takePermit(client, semaphore, "k");
    const [lock] = await client.send([
      "acquire",
      { resource: mutex, businessKey: "k", ownerId: "o" },
    ]);
    const l = lock![2] as Granted;
    const [renewed] = await client.send([
      "renew",
      {
        items: [
          { resource: mutex, businessKey: "k", lockId: l.lockId, tier: l.tier, kind: "permit" },
          { resource: semaphore, businessKey: "k", lockId: p.lockId, tier: p.tier },
        ],
      },
    ]);
    const { results } = renewed![2] as { results: RenewResult[] };
    for (const result of results) expect(result.error?.data.wardenCode).toBe("INVALID_ARGUMENT");
    expect((await permitsOf(semaphore, "k"))[0]!.renewals).toBe(0);
    const lease = await tenant.caller().lock.inspect({ resource: mutex, businessKey: "k" });
    expect(lease.lease?.renewals).toBe(0);

    // An unknown kind is a bad command as a whole: nothing is renewed.
    const [bad] = await client.send([
      "renew",
      {
        items: [
          { resource: semaphore, businessKey: "k", lockId: p.lockId, tier: p.tier, kind: "rw" },
        ],
      },
    ]);
    expect(bad![1]).toBe(1);
    expect((await permitsOf(semaphore, "k"))[0]!.renewals).toBe(0);
    client.ws.close();
  });

  it("another tenant's permit named on my resource is NOT_HOLDER like an unknown one; theirs is untouched", async () => {
    const mine = await registerSemaphore(tenant);
    const theirs = await registerSemaphore(other);
    const them = await connect(other.key, "them");
    const their = await takePermit(them, theirs, "shared");
    const me = await connect(tenant.key);
    await takePermit(me, mine, "shared");
    const [renewed] = await me.send([
      "renew",
      {
        items: [
          {
            resource: mine,
            businessKey: "shared",
            lockId: their.lockId,
            tier: their.tier,
            kind: "permit",
          },
          {
            resource: mine,
            businessKey: "shared",
            lockId: "D".repeat(22),
            tier: their.tier,
            kind: "permit",
          },
          {
            resource: theirs,
            businessKey: "shared",
            lockId: their.lockId,
            tier: their.tier,
            kind: "permit",
          },
        ],
      },
    ]);
    const { results } = renewed![2] as { results: RenewResult[] };
    expect(results[0]!.error?.data.wardenCode).toBe("NOT_HOLDER");
    expect(results[1]!.error?.data.wardenCode).toBe("NOT_HOLDER");
    expect(results[2]!.error?.data.wardenCode).toBe("UNKNOWN_RESOURCE");
    const still = await other
      .caller()
      .semaphore.inspect({ resource: theirs, businessKey: "shared" });
    expect(still.holders).toMatchObject([{ lockId: their.lockId, renewals: 0 }]);
    me.ws.close();
    them.ws.close();
  });

  it("past the resource's maxRenewals a permit item is LEASE_LOST and the others of the command still renew", async () => {
    const semaphore = await registerSemaphore(tenant, 1);
    const client = await connect(tenant.key);
    const p = await takePermit(client, semaphore, "m");
    const q = await takePermit(client, semaphore, "m");
    const item = (g: Granted) => ({
      resource: semaphore,
      businessKey: "m",
      lockId: g.lockId,
      tier: g.tier,
      kind: "permit",
    });
    await client.send(["renew", { items: [item(p)] }]);
    const [renewed] = await client.send(["renew", { items: [item(p), item(q)] }]);
    const { results } = renewed![2] as { results: RenewResult[] };
    expect(results[0]!.error?.data.wardenCode).toBe("LEASE_LOST");
    expect(results[1]!.ttlMs).toBeGreaterThan(0);
    const held = await permitsOf(semaphore, "m");
    expect(held.find((x) => x.lockId === p.lockId)!.renewals).toBe(1);
    expect(held.find((x) => x.lockId === q.lockId)!.renewals).toBe(1);
    client.ws.close();
  });
});
