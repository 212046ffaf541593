import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpServerHandle } from "../src/http/server.js";
import {
  registerResource,
  startHarness,
  uid,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";
import {
  connectLockClient,
  serveHarness,
  type LockClient,
  type RenewResult,
} from "./support/lock-client.js";

// Read-write lock grants in the lock socket's bulk `renew` command (docs/decisions/0211):
// items with `kind: "rwlock"` renew read and write grants through the rwlock use case, each
// answering on its own beside lock and permit items; real server, Redis and MariaDB.

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

const POLICY = {
  defaultLeaseMs: 5_000,
  maxLeaseMs: 30_000,
  expectedHoldMs: null,
  degrade: true,
  localFallback: "deny",
  fair: false,
  waitReplicas: 0,
  description: "rwlock renew test",
} as const;

async function registerRw(t: TenantHandle, maxRenewals: number | null = null): Promise<string> {
  const name = `rw:${uid()}`;
  await t.caller().resource.create({ ...POLICY, name, kind: "rwlock", maxRenewals });
  return name;
}

interface Granted {
  lockId: string;
  tier: string;
  fence: string;
}

async function take(
  client: LockClient,
  mode: "Read" | "Write",
  resource: string,
  businessKey: string,
  ownerId = "o",
): Promise<Granted> {
  const [reply] = await client.send([
    "call",
    ["mutation", `rwlock.acquire${mode}`, { resource, businessKey, ownerId, leaseMs: 5_000 }],
  ]);
  expect(reply![1], JSON.stringify(reply![2])).toBe(0);
  expect(reply![2]).toMatchObject({ granted: true });
  return reply![2] as Granted;
}

function item(resource: string, businessKey: string, g: Granted, extra: object = {}) {
  return { resource, businessKey, lockId: g.lockId, tier: g.tier, kind: "rwlock", ...extra };
}

/** The key's live grants, writer first. */
async function grantsOf(t: TenantHandle, resource: string, businessKey: string) {
  const state = await t.caller().rwlock.inspect({ resource, businessKey });
  return [...(state.writer ? [state.writer] : []), ...state.readers];
}

describe("read-write grants in the bulk renew command", () => {
  it("the server names the kinds its renew takes in the limits push", async () => {
    const client = await connectLockClient(http.url, tenant.key, "rw-renew");
    await client.send(["inspect", { resource: "nothing", businessKey: "k" }]);
    expect(client.entries.find((entry) => entry[1] === "limits")?.[2]).toMatchObject({
      renewKinds: ["permit", "rwlock"],
    });
    client.ws.close();
  });

  it("renews read and write grants and locks of one command, each answering on its own", async () => {
    const rw = await registerRw(tenant);
    const mutex = await registerResource(tenant, { maxLeaseMs: 30_000 });
    const client = await connectLockClient(http.url, tenant.key, "rw-renew");
    const r1 = await take(client, "Read", rw, "shared");
    const r2 = await take(client, "Read", rw, "shared", "o2");
    const w = await take(client, "Write", rw, "alone");
    const [lock] = await client.send([
      "acquire",
      { resource: mutex, businessKey: "m", ownerId: "o" },
    ]);
    const l = lock![2] as Granted;
    const [renewed] = await client.send([
      "renew",
      {
        items: [
          item(rw, "shared", r1, { leaseMs: 20_000 }),
          { resource: mutex, businessKey: "m", lockId: l.lockId, tier: l.tier, leaseMs: 20_000 },
          item(rw, "shared", { ...r1, lockId: "C".repeat(22) }),
          item(rw, "alone", w, { leaseMs: 25_000 }),
          item(rw, "shared", r2),
        ],
      },
    ]);
    expect(renewed![1]).toBe(0);
    const { results } = renewed![2] as { results: RenewResult[] };
    expect(results[0]!.ttlMs).toBeGreaterThan(15_000);
    expect(results[1]!.ttlMs).toBeGreaterThan(15_000);
    expect(results[2]!.error?.data.wardenCode).toBe("NOT_HOLDER");
    expect(results[3]!.ttlMs).toBeGreaterThan(20_000);
    expect(results[4]!.ttlMs).toBeGreaterThan(0);
    const shared = await grantsOf(tenant, rw, "shared");
    expect(shared.map((g) => [g.lockId, g.renewals]).sort()).toEqual(
      [
        [r1.lockId, 1],
        [r2.lockId, 1],
      ].sort(),
    );
    expect(shared.find((g) => g.lockId === r1.lockId)!.expiresAt).toBe(results[0]!.expiresAt);
    const alone = await grantsOf(tenant, rw, "alone");
    expect(alone).toMatchObject([{ lockId: w.lockId, mode: "write", renewals: 1 }]);
    expect(alone[0]!.expiresAt).toBe(results[3]!.expiresAt);
    client.ws.close();
  });

  it("kinds do not mix: an rwlock item on a mutex or a semaphore and a lock item on an rwlock are INVALID_ARGUMENT on kind, and change nothing", async () => {
    const rw = await registerRw(tenant);
    const mutex = await registerResource(tenant);
    const sem = `sem:${uid()}`;
    await tenant
      .caller()
      .resource.create({ ...POLICY, name: sem, kind: "semaphore", permits: 2, maxRenewals: null });
    const client = await connectLockClient(http.url, tenant.key, "rw-renew");
    const r = await take(client, "Read", rw, "k");
    const [lock] = await client.send([
      "acquire",
      { resource: mutex, businessKey: "k", ownerId: "o" },
    ]);
    const l = lock![2] as Granted;
    const [permit] = await client.send([
      "call",
      ["mutation", "semaphore.acquire", { resource: sem, businessKey: "k", ownerId: "o" }],
    ]);
    const p = permit![2] as Granted;
    const [renewed] = await client.send([
      "renew",
      {
        items: [
          item(mutex, "k", l),
          item(sem, "k", p),
          { resource: rw, businessKey: "k", lockId: r.lockId, tier: r.tier },
          { ...item(rw, "k", r), kind: "permit" },
        ],
      },
    ]);
    const { results } = renewed![2] as { results: RenewResult[] };
    for (const result of results) {
      expect(result.error?.data.wardenCode).toBe("INVALID_ARGUMENT");
      expect(result.error?.data.details).toMatchObject({ field: "kind" });
    }
    expect((await grantsOf(tenant, rw, "k"))[0]!.renewals).toBe(0);
    const lease = await tenant.caller().lock.inspect({ resource: mutex, businessKey: "k" });
    expect(lease.lease?.renewals).toBe(0);
    const permits = await tenant.caller().semaphore.inspect({ resource: sem, businessKey: "k" });
    expect(permits.holders[0]!.renewals).toBe(0);
    client.ws.close();
  });

  it("another tenant's grant named on my resource is NOT_HOLDER like an unknown one; theirs is untouched", async () => {
    const mine = await registerRw(tenant);
    const theirs = await registerRw(other);
    const them = await connectLockClient(http.url, other.key, "them");
    const their = await take(them, "Write", theirs, "shared");
    const me = await connectLockClient(http.url, tenant.key, "rw-renew");
    await take(me, "Read", mine, "shared");
    const [renewed] = await me.send([
      "renew",
      {
        items: [
          item(mine, "shared", their),
          item(mine, "shared", { ...their, lockId: "D".repeat(22) }),
          item(theirs, "shared", their),
        ],
      },
    ]);
    const { results } = renewed![2] as { results: RenewResult[] };
    expect(results[0]!.error?.data.wardenCode).toBe("NOT_HOLDER");
    expect(results[1]!.error?.data.wardenCode).toBe("NOT_HOLDER");
    expect(results[2]!.error?.data.wardenCode).toBe("UNKNOWN_RESOURCE");
    expect(await grantsOf(other, theirs, "shared")).toMatchObject([
      { lockId: their.lockId, renewals: 0 },
    ]);
    me.ws.close();
    them.ws.close();
  });

  it("past the resource's maxRenewals an rwlock item is LEASE_LOST and the others of the command still renew", async () => {
    const rw = await registerRw(tenant, 1);
    const client = await connectLockClient(http.url, tenant.key, "rw-renew");
    const a = await take(client, "Read", rw, "m");
    const b = await take(client, "Read", rw, "m", "o2");
    await client.send(["renew", { items: [item(rw, "m", a)] }]);
    const [renewed] = await client.send(["renew", { items: [item(rw, "m", a), item(rw, "m", b)] }]);
    const { results } = renewed![2] as { results: RenewResult[] };
    expect(results[0]!.error?.data.wardenCode).toBe("LEASE_LOST");
    expect(results[1]!.ttlMs).toBeGreaterThan(0);
    const held = await grantsOf(tenant, rw, "m");
    expect(held.find((g) => g.lockId === a.lockId)!.renewals).toBe(1);
    expect(held.find((g) => g.lockId === b.lockId)!.renewals).toBe(1);
    client.ws.close();
  });
});
