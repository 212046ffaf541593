import { createConnection } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../src/cli/run-cli.js";
import { expectCode } from "./support/expect-trpc.js";
import { eventually } from "./support/fleet.js";
import {
  registerResource,
  startHarness,
  uid,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";

let h: Harness;
let tenant: TenantHandle;
let other: TenantHandle;
let semaphore: string;
let fairSemaphore: string;
let mutex: string;

const POLICY = {
  defaultLeaseMs: 5_000,
  maxLeaseMs: 10_000,
  maxRenewals: null,
  expectedHoldMs: null,
  degrade: true,
  localFallback: "deny",
  fair: false,
  waitReplicas: 0,
  description: "semaphore test",
} as const;

async function registerSemaphore(t: TenantHandle, permits: number, fair = false): Promise<string> {
  const name = `sem:${uid()}`;
  await t.caller().resource.create({ ...POLICY, name, kind: "semaphore", permits, fair });
  return name;
}

/** The Warden error a call was refused with. */
async function causeOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => expect.fail("expected a refusal"),
    (error: { cause?: unknown }) => error.cause,
  );
}

beforeAll(async () => {
  h = await startHarness();
  tenant = await h.tenant();
  other = await h.tenant();
  semaphore = await registerSemaphore(tenant, 3);
  fairSemaphore = await registerSemaphore(tenant, 2, true);
  mutex = await registerResource(tenant);
});
afterAll(() => h?.close());

describe("semaphore router", () => {
  it("releases a permit granted after its caller went away, and answers WAIT_CANCELLED (decision 0216)", async () => {
    const key = { resource: semaphore, businessKey: `gone-${uid()}` };
    const principal = await h.services.apiKeys.resolve(tenant.key);
    if (!principal) throw new Error("expected the tenant's principal");
    const connection = new AbortController();
    const acquiring = h.services.semaphoreUseCases!.acquire(
      { principal, clientId: "gone" },
      { ...key, ownerId: "w1", permits: 3 },
      connection.signal,
    );
    // The caller's connection closes with the store's grant still on its way.
    connection.abort();
    await expect(acquiring).rejects.toMatchObject({ code: "WAIT_CANCELLED" });
    const seen = await tenant.caller().semaphore.inspect(key);
    expect(seen.inUse).toBe(0);
    expect(seen.holders).toEqual([]);
  });

  it("grants up to the total, refuses beyond it with how full the key is, and frees on release", async () => {
    const key = { resource: semaphore, businessKey: `k-${uid()}` };
    const a = tenant.caller();
    const first = await a.semaphore.acquire({ ...key, ownerId: "w1", permits: 2 });
    if (!first.granted) throw new Error("expected a grant");
    expect(first).toMatchObject({ permits: 2, inUse: 2, totalPermits: 3, tier: "redis" });
    expect(first.fence).toMatch(/^\d+$/);
    const second = await a.semaphore.acquire({ ...key, ownerId: "w2" });
    if (!second.granted) throw new Error("expected a grant");
    expect(second.inUse).toBe(3);
    const refused = await a.semaphore.acquire({ ...key, ownerId: "w3" });
    expect(refused).toMatchObject({ granted: false, inUse: 3, totalPermits: 3 });

    const seen = await a.semaphore.inspect(key);
    expect(seen.inUse).toBe(3);
    expect(seen.holders.map((p) => p.lockId).sort()).toEqual([first.lockId, second.lockId].sort());

    await a.semaphore.release({ ...key, lockId: first.lockId, tier: first.tier });
    const third = await a.semaphore.acquire({ ...key, ownerId: "w3", permits: 2 });
    if (!third.granted) throw new Error("expected a grant after the release");
    // Fences grow per key across permits.
    expect(BigInt(third.fence!)).toBeGreaterThan(BigInt(second.fence!));
    expect(BigInt(second.fence!)).toBeGreaterThan(BigInt(first.fence!));
    // A second release of the same grant is NOT_HOLDER.
    expect(
      await causeOf(a.semaphore.release({ ...key, lockId: first.lockId, tier: first.tier })),
    ).toMatchObject({ code: "NOT_HOLDER" });
  });

  it("a waiting acquire is granted when a permit is released, and times out when none is", async () => {
    const key = { resource: semaphore, businessKey: `w-${uid()}` };
    const a = tenant.caller();
    const held = await a.semaphore.acquire({ ...key, ownerId: "h", permits: 3 });
    if (!held.granted) throw new Error("expected a grant");
    const timedOut = await a.semaphore.acquire({ ...key, ownerId: "t", waitMs: 300 }).then(
      () => null,
      (error: { cause?: unknown }) => error.cause,
    );
    expect(timedOut).toMatchObject({ code: "LOCK_TIMEOUT" });

    const waiting = a.semaphore.acquire({ ...key, ownerId: "w", waitMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await a.semaphore.release({ ...key, lockId: held.lockId, tier: held.tier });
    const granted = await waiting;
    expect(granted).toMatchObject({ granted: true, inUse: 1 });
  });

  it("on the MySQL tier a dead holder's permit row and its key's row are swept (decision 0218)", async () => {
    await h.services.locks.override("mysql", "semaphore-test", "semaphores on MySQL");
    const db = await createConnection({ uri: h.db.url });
    try {
      expect(await eventually(async () => h.services.locks.tier === "mysql")).toBe(true);
      const key = { resource: semaphore, businessKey: `dead-${uid()}` };
      // A holder that never comes back: no release, no renewal, no other acquire of the key.
      const dead = await tenant.caller().semaphore.acquire({ ...key, ownerId: "d", leaseMs: 300 });
      if (!dead.granted) throw new Error("expected a grant");
      expect(dead.tier).toBe("mysql");
      const rowsOf = async (): Promise<[permits: number, keys: number]> => {
        const [rows] = await db.query(
          `SELECT (SELECT COUNT(*) FROM mysql_semaphore_permit WHERE lock_id = ?) AS permits,
                  (SELECT COUNT(*) FROM mysql_semaphore WHERE resource = ? AND business_key = ?) AS \`keys\``,
          [dead.lockId, key.resource, key.businessKey],
        );
        const row = (rows as Array<{ permits: number; keys: number }>)[0]!;
        return [Number(row.permits), Number(row.keys)];
      };
      expect(await rowsOf()).toEqual([1, 1]);
      expect(await eventually(async () => (await rowsOf()).every((n) => n === 0), 20_000)).toBe(
        true,
      );
    } finally {
      await db.end();
      await h.services.locks.override("redis", "semaphore-test", "back to Redis");
      await h.services.locks.override(null, "semaphore-test", "automatic");
    }
  });

  it("extends a permit and an unknown lockId is NOT_HOLDER", async () => {
    const key = { resource: semaphore, businessKey: `e-${uid()}` };
    const a = tenant.caller();
    const grant = await a.semaphore.acquire({ ...key, ownerId: "x", leaseMs: 1_000 });
    if (!grant.granted) throw new Error("expected a grant");
    const extended = await a.semaphore.extend({
      ...key,
      lockId: grant.lockId,
      tier: grant.tier,
      leaseMs: 8_000,
    });
    expect(extended.permit.ttlMs).toBeGreaterThan(5_000);
    expect(extended.permit.renewals).toBe(1);
    const error = await a.semaphore
      .extend({ ...key, lockId: "AAAAAAAAAAAAAAAAAAAAAA", tier: grant.tier })
      .then(
        () => null,
        (e: { cause?: unknown }) => e.cause,
      );
    expect(error).toMatchObject({ code: "NOT_HOLDER" });
  });

  it("a fair semaphore serves a waiter asking for many before later ones asking for few", async () => {
    const key = { resource: fairSemaphore, businessKey: `f-${uid()}` };
    const a = tenant.caller();
    const one = await a.semaphore.acquire({ ...key, ownerId: "one" });
    if (!one.granted) throw new Error("expected a grant");
    const big = a.semaphore.acquire({ ...key, ownerId: "big", permits: 2, waitMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // One permit is free, but the waiter queued first needs two: a try is refused as queued.
    const small = await a.semaphore.acquire({ ...key, ownerId: "small" });
    expect(small).toMatchObject({ granted: false, queued: true });
    await a.semaphore.release({ ...key, lockId: one.lockId, tier: one.tier });
    expect(await big).toMatchObject({ granted: true, permits: 2 });
  });
});

describe("semaphore bad input: typed, nothing changed", () => {
  it("refuses permits 0, above the total and above the maximum", async () => {
    const key = { resource: semaphore, businessKey: `bad-${uid()}` };
    const a = tenant.caller();
    await expectCode(a.semaphore.acquire({ ...key, ownerId: "x", permits: 0 }), "BAD_REQUEST");
    const above = await expectCode(
      a.semaphore.acquire({ ...key, ownerId: "x", permits: 4 }),
      "BAD_REQUEST",
    );
    expect(above.cause).toMatchObject({ code: "INVALID_ARGUMENT", field: "permits" });
    const leased = await expectCode(
      a.semaphore.acquire({ ...key, ownerId: "x", leaseMs: 20_000 }),
      "BAD_REQUEST",
    );
    expect(leased.cause).toMatchObject({ code: "INVALID_ARGUMENT", field: "leaseMs" });
    expect(await a.semaphore.inspect(key)).toMatchObject({ holders: [], inUse: 0 });
  });

  it("semaphore calls on a mutex resource and lock calls on a semaphore are INVALID_ARGUMENT on kind", async () => {
    const a = tenant.caller();
    const onMutex = await expectCode(
      a.semaphore.acquire({ resource: mutex, businessKey: "k", ownerId: "x" }),
      "BAD_REQUEST",
    );
    expect(onMutex.cause).toMatchObject({ code: "INVALID_ARGUMENT", field: "kind" });
    expect(await a.lock.inspect({ resource: mutex, businessKey: "k" })).toMatchObject({
      lease: null,
    });

    const key = { resource: semaphore, businessKey: `kind-${uid()}` };
    const onSemaphore = await expectCode(a.lock.acquire({ ...key, ownerId: "x" }), "BAD_REQUEST");
    expect(onSemaphore.cause).toMatchObject({ code: "INVALID_ARGUMENT", field: "kind" });
    expect(await a.semaphore.inspect(key)).toMatchObject({ holders: [], inUse: 0 });
  });

  it("registration: a semaphore needs permits, a mutex has none, permits stay in 1..10000", async () => {
    const a = tenant.caller();
    const name = () => `sem:${uid()}`;
    const missing = await expectCode(
      a.resource.create({ ...POLICY, name: name(), kind: "semaphore" }),
      "BAD_REQUEST",
    );
    expect(missing.cause).toMatchObject({ code: "INVALID_ARGUMENT", field: "permits" });
    const onMutex = await expectCode(
      a.resource.create({ ...POLICY, name: name(), permits: 3 }),
      "BAD_REQUEST",
    );
    expect(onMutex.cause).toMatchObject({ code: "INVALID_ARGUMENT", field: "permits" });
    await expectCode(
      a.resource.create({ ...POLICY, name: name(), kind: "semaphore", permits: 0 }),
      "BAD_REQUEST",
    );
    await expectCode(
      a.resource.create({ ...POLICY, name: name(), kind: "semaphore", permits: 10_001 }),
      "BAD_REQUEST",
    );
    await expectCode(
      // A read-write lock has no permits (docs/decisions/0166).
      a.resource.create({ ...POLICY, name: name(), kind: "rwlock", permits: 3 }),
      "BAD_REQUEST",
    );
    const list = await a.resource.list({});
    expect(
      list.resources
        .filter((r) => r.kind === "semaphore")
        .map((r) => r.name)
        .sort(),
    ).toEqual([semaphore, fairSemaphore].sort());
  });

  it("the kind is fixed: an update naming another kind is refused and changes nothing; permits may change", async () => {
    const a = tenant.caller();
    const name = await registerSemaphore(tenant, 4);
    const error = await expectCode(
      a.resource.update({ name, patch: { kind: "mutex", permits: null } }),
      "BAD_REQUEST",
    );
    expect(error.cause).toMatchObject({ code: "INVALID_ARGUMENT", field: "kind" });
    const toNull = await expectCode(
      a.resource.update({ name, patch: { permits: null } }),
      "BAD_REQUEST",
    );
    expect(toNull.cause).toMatchObject({ code: "INVALID_ARGUMENT", field: "permits" });
    expect(await a.resource.get({ name })).toMatchObject({ kind: "semaphore", permits: 4 });
    const mutexError = await expectCode(
      a.resource.update({ name: mutex, patch: { kind: "semaphore", permits: 2 } }),
      "BAD_REQUEST",
    );
    expect(mutexError.cause).toMatchObject({ code: "INVALID_ARGUMENT", field: "kind" });
    expect(await a.resource.get({ name: mutex })).toMatchObject({ kind: "mutex", permits: null });
    expect(await a.resource.update({ name, patch: { permits: 6 } })).toMatchObject({
      permits: 6,
    });
  });

  it("another tenant's semaphore is UNKNOWN_RESOURCE, like an unknown name, and is left alone", async () => {
    const key = { resource: semaphore, businessKey: `foreign-${uid()}` };
    const held = await tenant.caller().semaphore.acquire({ ...key, ownerId: "mine" });
    if (!held.granted) throw new Error("expected a grant");
    const b = other.caller();
    for (const call of [
      b.semaphore.acquire({ ...key, ownerId: "x" }),
      b.semaphore.inspect(key),
      b.semaphore.release({ ...key, lockId: held.lockId, tier: held.tier }),
      b.semaphore.extend({ ...key, lockId: held.lockId, tier: held.tier }),
      b.semaphore.acquire({ resource: `sem:${uid()}`, businessKey: "k", ownerId: "x" }),
    ]) {
      expect(await causeOf(call)).toMatchObject({ code: "UNKNOWN_RESOURCE" });
    }
    expect((await tenant.caller().semaphore.inspect(key)).holders).toHaveLength(1);
  });
});

describe("semaphore audit and warden-admin", () => {
  it("audits a grant and its release with the permit's lockId and fence", async () => {
    const key = { resource: semaphore, businessKey: `audit-${uid()}` };
    const a = tenant.caller();
    const grant = await a.semaphore.acquire({ ...key, ownerId: "auditor", permits: 2 });
    if (!grant.granted) throw new Error("expected a grant");
    await a.semaphore.release({ ...key, lockId: grant.lockId, tier: grant.tier });
    await h.services.audit.flush();
    // One hold row per permit grant (decision 0196), read back as the two events.
    const hold = await h.prisma.lockHold.findUniqueOrThrow({ where: { lockId: grant.lockId } });
    expect(hold).toMatchObject({
      kind: "semaphore",
      permits: 2,
      fence: BigInt(grant.fence!),
      tenantId: tenant.id,
      endType: "released",
    });
    expect(await h.prisma.lockEvent.count({ where: { lockId: grant.lockId } })).toBe(0);
    const events = (await a.event.search({ lockId: grant.lockId })).events;
    expect(events.map((event) => event.type).sort()).toEqual(["permit-grant", "permit-release"]);
    expect(events.every((event) => event.fence === grant.fence)).toBe(true);
    expect(events.every((event) => event.tenantId === tenant.id)).toBe(true);
  });

  it("warden-admin creates a semaphore with --kind/--permits and refuses a kind change", async () => {
    const run = async (...argv: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(argv, {
        env: { DATABASE_URL: h.db.url },
        out: (line) => out.push(line),
        err: (line) => err.push(line),
      });
      return { code, out: out.join("\n"), err: err.join("\n") };
    };
    const name = `cli.sem.${uid()}`;
    const made = await run(
      "resource",
      "create",
      tenant.id,
      name,
      "--kind",
      "semaphore",
      "--permits",
      "5",
    );
    expect(made.code).toBe(0);
    expect(made.out).toContain("kind=semaphore permits=5");
    const missing = await run("resource", "create", tenant.id, `${name}.b`, "--kind", "semaphore");
    expect(missing.code).not.toBe(0);
    expect(missing.err).toContain("permits");
    const changed = await run("resource", "update", name, "--kind", "mutex");
    expect(changed.code).not.toBe(0);
    expect(changed.err).toContain("kind");
    expect(
      await h.prisma.resource.findUnique({
        where: { name },
        select: { kind: true, permits: true },
      }),
    ).toEqual({
      kind: "semaphore",
      permits: 5,
    });
    expect(await h.prisma.resource.findUnique({ where: { name: `${name}.b` } })).toBeNull();
  });
});
