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
let rw: string;
let readerFirst: string;
let mutex: string;
let semaphore: string;

const POLICY = {
  defaultLeaseMs: 5_000,
  maxLeaseMs: 10_000,
  maxRenewals: null,
  expectedHoldMs: null,
  degrade: true,
  localFallback: "deny",
  fair: false,
  waitReplicas: 0,
  description: "read-write lock test",
} as const;

async function registerRw(t: TenantHandle, writerPreference?: boolean): Promise<string> {
  const name = `rw:${uid()}`;
  await t.caller().resource.create({
    ...POLICY,
    name,
    kind: "rwlock",
    ...(writerPreference === undefined ? {} : { writerPreference }),
  });
  return name;
}

/** The Warden error a call was refused with. */
async function causeOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => expect.fail("expected a refusal"),
    (error: { cause?: unknown }) => error.cause,
  );
}

type Reply = Awaited<ReturnType<ReturnType<TenantHandle["caller"]>["rwlock"]["acquireRead"]>>;

function granted(reply: Reply): Extract<Reply, { granted: true }> {
  if (!reply.granted) throw new Error(`expected a grant, got ${JSON.stringify(reply)}`);
  return reply;
}

/**
 * The audited steps of `lockId` as `event.search` reads them (a grant's hold row, decision
 * 0199), once at least `count` are written.
 */
async function auditOf(lockId: string, count: number) {
  let rows: Array<{
    type: string;
    fence: bigint | null;
    tenantId: string | null;
    reason: string | null;
  }> = [];
  await eventually(async () => {
    const found = await tenant.caller().event.search({ lockId });
    rows = found.events.map((event) => ({
      type: event.type,
      fence: event.fence === null ? null : BigInt(event.fence),
      tenantId: event.tenantId,
      reason: event.reason,
    }));
    // Rows written in one millisecond have no order: sorted by type.
    rows.sort((x, y) => x.type.localeCompare(y.type));
    return rows.length >= count;
  }, 20_000);
  return rows;
}

beforeAll(async () => {
  h = await startHarness();
  tenant = await h.tenant();
  other = await h.tenant();
  rw = await registerRw(tenant);
  readerFirst = await registerRw(tenant, false);
  mutex = await registerResource(tenant);
  semaphore = `sem:${uid()}`;
  await tenant
    .caller()
    .resource.create({ ...POLICY, name: semaphore, kind: "semaphore", permits: 2 });
});
afterAll(() => h?.close());

describe("rwlock router", () => {
  it("releases a write grant made after its caller went away, and answers WAIT_CANCELLED (decision 0216)", async () => {
    const key = { resource: rw, businessKey: `gone-${uid()}` };
    const principal = await h.services.apiKeys.resolve(tenant.key);
    if (!principal) throw new Error("expected the tenant's principal");
    const connection = new AbortController();
    const acquiring = h.services.rwUseCases!.acquire(
      "write",
      { principal, clientId: "gone" },
      { ...key, ownerId: "w" },
      connection.signal,
    );
    // The caller's connection closes with the store's grant still on its way.
    connection.abort();
    await expect(acquiring).rejects.toMatchObject({ code: "WAIT_CANCELLED" });
    // The key is free at once: another writer gets it without waiting out the lease.
    granted(await tenant.caller().rwlock.acquireWrite({ ...key, ownerId: "next" }));
  });

  it("many readers share one fence; a writer waits for them and is fenced above them; readers after it are fenced above it", async () => {
    const key = { resource: rw, businessKey: `k-${uid()}` };
    const a = tenant.caller();
    const readers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        a.rwlock.acquireRead({ ...key, ownerId: `r${i}` }).then(granted),
      ),
    );
    expect(new Set(readers.map((r) => r.lockId)).size).toBe(10);
    expect(new Set(readers.map((r) => r.fence)).size).toBe(1);
    expect(readers[0]).toMatchObject({ mode: "read", tier: "redis", reentered: false });
    const seen = await a.rwlock.inspect(key);
    expect(seen.readers).toHaveLength(10);
    expect(seen.writer).toBeNull();
    expect(seen.readFence).toBe(readers[0]!.fence);

    const refused = await a.rwlock.acquireWrite({ ...key, ownerId: "w" });
    expect(refused).toMatchObject({ granted: false, mode: "write", reason: "read-held" });
    if (refused.granted) throw new Error("unreachable");
    expect(refused.holders).toHaveLength(10);

    // A waiting writer is granted once the last reader leaves.
    const waiting = a.rwlock.acquireWrite({ ...key, ownerId: "w", waitMs: 20_000 });
    for (const reader of readers) {
      const released = await a.rwlock.release({ ...key, lockId: reader.lockId, tier: reader.tier });
      expect(released).toMatchObject({ released: true, mode: "read", fence: reader.fence });
    }
    const writer = granted(await waiting);
    expect(writer.mode).toBe("write");
    expect(BigInt(writer.fence!)).toBeGreaterThan(BigInt(readers[0]!.fence!));

    // While it writes, readers and other writers are refused.
    expect(await a.rwlock.acquireRead({ ...key, ownerId: "late" })).toMatchObject({
      granted: false,
      reason: "write-held",
    });
    // A refused try registers no writer intent: the reader below is not held back by it.
    expect(await a.rwlock.acquireWrite({ ...key, ownerId: "w2" })).toMatchObject({
      granted: false,
      reason: "write-held",
    });
    expect((await a.rwlock.inspect(key)).waitingWriters).toBe(0);
    expect((await a.rwlock.inspect(key)).writer?.lockId).toBe(writer.lockId);

    await a.rwlock.release({ ...key, lockId: writer.lockId, tier: writer.tier });
    const after = granted(await a.rwlock.acquireRead({ ...key, ownerId: "late" }));
    expect(BigInt(after.fence!)).toBeGreaterThan(BigInt(writer.fence!));
    // A second release of the same grant is NOT_HOLDER.
    await a.rwlock.release({ ...key, lockId: after.lockId, tier: after.tier });
    expect(
      await causeOf(a.rwlock.release({ ...key, lockId: after.lockId, tier: after.tier })),
    ).toMatchObject({ code: "NOT_HOLDER" });
  });

  it("writer preference: a waiting writer stops new readers; without it readers keep entering", async () => {
    const a = tenant.caller();
    for (const [resource, prefers] of [
      [rw, true],
      [readerFirst, false],
    ] as const) {
      const key = { resource, businessKey: `pref-${uid()}` };
      const reader = granted(await a.rwlock.acquireRead({ ...key, ownerId: "r1" }));
      const writer = a.rwlock.acquireWrite({ ...key, ownerId: "w", waitMs: 20_000 });
      if (prefers) {
        // The waiting writer's intent is in the store: a new reader is refused.
        expect(
          await eventually(async () => (await a.rwlock.inspect(key)).waitingWriters === 1),
        ).toBe(true);
        const late = await a.rwlock.acquireRead({ ...key, ownerId: "r2" });
        expect(late).toMatchObject({ granted: false, reason: "writer-waiting", holders: [] });
        expect((await a.rwlock.inspect(key)).writerPreference).toBe(true);
      } else {
        const late = granted(await a.rwlock.acquireRead({ ...key, ownerId: "r2" }));
        expect(late.fence).toBe(reader.fence);
        await a.rwlock.release({ ...key, lockId: late.lockId, tier: late.tier });
      }
      await a.rwlock.release({ ...key, lockId: reader.lockId, tier: reader.tier });
      const won = granted(await writer);
      expect(BigInt(won.fence!)).toBeGreaterThan(BigInt(reader.fence!));
      await a.rwlock.release({ ...key, lockId: won.lockId, tier: won.tier });
    }
  });

  it("a wait times out with LOCK_TIMEOUT; extend renews; a re-entry shares the grant", async () => {
    const key = { resource: rw, businessKey: `wait-${uid()}` };
    const a = tenant.caller();
    const writer = granted(await a.rwlock.acquireWrite({ ...key, ownerId: "w", leaseMs: 5_000 }));
    expect(
      await causeOf(a.rwlock.acquireRead({ ...key, ownerId: "r", waitMs: 300 })),
    ).toMatchObject({ code: "LOCK_TIMEOUT" });
    const again = granted(await a.rwlock.acquireWrite({ ...key, ownerId: "w" }));
    expect(again).toMatchObject({ reentered: true, lockId: writer.lockId, fence: writer.fence });
    const extended = await a.rwlock.extend({
      ...key,
      lockId: writer.lockId,
      tier: writer.tier,
      leaseMs: 8_000,
    });
    expect(extended.grant).toMatchObject({ lockId: writer.lockId, mode: "write", renewals: 1 });
    // Two entries: the first release leaves the grant held.
    expect(
      await a.rwlock.release({ ...key, lockId: writer.lockId, tier: writer.tier }),
    ).toMatchObject({ released: false });
    expect(
      await a.rwlock.release({ ...key, lockId: writer.lockId, tier: writer.tier }),
    ).toMatchObject({ released: true });
    expect(await a.rwlock.inspect(key)).toMatchObject({ writer: null, readers: [] });
  });

  it("bad input and the wrong kind are typed errors and change nothing", async () => {
    const a = tenant.caller();
    const key = { resource: rw, businessKey: `bad-${uid()}` };
    expect(
      await causeOf(a.rwlock.acquireRead({ ...key, ownerId: "x", leaseMs: 60_000 })),
    ).toMatchObject({ code: "INVALID_ARGUMENT", field: "leaseMs" });
    await expectCode(a.rwlock.acquireWrite({ ...key, ownerId: "x", waitMs: -1 }), "BAD_REQUEST");
    await expectCode(a.rwlock.acquireRead({ ...key, ownerId: "" }), "BAD_REQUEST");
    // A holder that reads may not also write (no upgrade).
    const reader = granted(await a.rwlock.acquireRead({ ...key, ownerId: "same" }));
    expect(await causeOf(a.rwlock.acquireWrite({ ...key, ownerId: "same" }))).toMatchObject({
      code: "INVALID_ARGUMENT",
      field: "mode",
    });
    await a.rwlock.release({ ...key, lockId: reader.lockId, tier: reader.tier });
    // Mutex and semaphore calls on an rwlock resource, and rwlock calls on theirs.
    for (const call of [
      () => a.lock.acquire({ ...key, ownerId: "x" }),
      () => a.semaphore.acquire({ ...key, ownerId: "x" }),
      () => a.rwlock.acquireRead({ resource: mutex, businessKey: key.businessKey, ownerId: "x" }),
      () =>
        a.rwlock.acquireWrite({ resource: semaphore, businessKey: key.businessKey, ownerId: "x" }),
      () => a.rwlock.inspect({ resource: mutex, businessKey: key.businessKey }),
    ]) {
      expect(await causeOf(call())).toMatchObject({ code: "INVALID_ARGUMENT", field: "kind" });
    }
    expect(await a.rwlock.inspect(key)).toMatchObject({ writer: null, readers: [], tier: null });
    expect(await a.lock.inspect({ resource: mutex, businessKey: key.businessKey })).toMatchObject({
      lease: null,
    });
    expect(
      (await a.semaphore.inspect({ resource: semaphore, businessKey: key.businessKey })).holders,
    ).toEqual([]);

    // Registration: an rwlock has no permits; only an rwlock turns writer preference off; the kind is fixed.
    const withPermits = await expectCode(
      a.resource.create({ ...POLICY, name: `rw:${uid()}`, kind: "rwlock", permits: 3 }),
      "BAD_REQUEST",
    );
    expect(withPermits.cause).toMatchObject({ code: "INVALID_ARGUMENT", field: "permits" });
    const mutexPref = `res:${uid()}`;
    const noPref = await expectCode(
      a.resource.create({ ...POLICY, name: mutexPref, writerPreference: false }),
      "BAD_REQUEST",
    );
    expect(noPref.cause).toMatchObject({ code: "INVALID_ARGUMENT", field: "writerPreference" });
    expect(await h.prisma.resource.findUnique({ where: { name: mutexPref } })).toBeNull();
    const changed = await expectCode(
      a.resource.update({ name: rw, patch: { kind: "mutex" } }),
      "BAD_REQUEST",
    );
    expect(changed.cause).toMatchObject({ code: "INVALID_ARGUMENT", field: "kind" });
    expect(await a.resource.get({ name: rw })).toMatchObject({
      kind: "rwlock",
      writerPreference: true,
      permits: null,
    });

    // Lock-delay and release-on-disconnect act on mutex leases only: asking for them on an
    // rwlock or a semaphore is refused with nothing written, the defaults pass.
    const delayed = `rw:${uid()}`;
    const withDelay = await expectCode(
      a.resource.create({ ...POLICY, name: delayed, kind: "rwlock", lockDelayMs: 5_000 }),
      "BAD_REQUEST",
    );
    expect(withDelay.cause).toMatchObject({ code: "INVALID_ARGUMENT", field: "lockDelayMs" });
    expect(await h.prisma.resource.findUnique({ where: { name: delayed } })).toBeNull();
    const released = `sem:${uid()}`;
    const withRelease = await expectCode(
      a.resource.create({
        ...POLICY,
        name: released,
        kind: "semaphore",
        permits: 2,
        releaseOnDisconnectMs: 10_000,
      }),
      "BAD_REQUEST",
    );
    expect(withRelease.cause).toMatchObject({
      code: "INVALID_ARGUMENT",
      field: "releaseOnDisconnectMs",
    });
    expect(await h.prisma.resource.findUnique({ where: { name: released } })).toBeNull();
    const patched = await expectCode(
      a.resource.update({ name: rw, patch: { lockDelayMs: 1_000, description: "changed" } }),
      "BAD_REQUEST",
    );
    expect(patched.cause).toMatchObject({ code: "INVALID_ARGUMENT", field: "lockDelayMs" });
    expect(await a.resource.get({ name: rw })).toMatchObject({
      lockDelayMs: 0,
      releaseOnDisconnectMs: null,
      description: POLICY.description,
    });
    expect(
      await a.resource.update({
        name: rw,
        patch: { lockDelayMs: 0, releaseOnDisconnectMs: null },
      }),
    ).toMatchObject({ kind: "rwlock", lockDelayMs: 0, releaseOnDisconnectMs: null });

    // Waiting for Redis replicas (WAIT) applies to every kind (decision 0222): accepted on a
    // semaphore and an rwlock, on create and on update (what it does: wait-replicas-policy).
    const replicated = `sem:${uid()}`;
    expect(
      await a.resource.create({
        ...POLICY,
        name: replicated,
        kind: "semaphore",
        permits: 2,
        waitReplicas: 1,
      }),
    ).toMatchObject({ kind: "semaphore", waitReplicas: 1 });
    expect(
      await a.resource.update({ name: rw, patch: { waitReplicas: 2, description: "changed" } }),
    ).toMatchObject({ kind: "rwlock", waitReplicas: 2, description: "changed" });
    expect(
      await a.resource.update({
        name: rw,
        patch: { waitReplicas: 0, description: POLICY.description },
      }),
    ).toMatchObject({ kind: "rwlock", waitReplicas: 0 });

    // FIFO order has no queue to act on in a read-write lock: fair is refused, on create and
    // on update, with nothing written; false passes.
    const fairName = `rw:${uid()}`;
    const fairCreate = await expectCode(
      a.resource.create({ ...POLICY, name: fairName, kind: "rwlock", fair: true }),
      "BAD_REQUEST",
    );
    expect(fairCreate.cause).toMatchObject({ code: "INVALID_ARGUMENT", field: "fair" });
    expect(await h.prisma.resource.findUnique({ where: { name: fairName } })).toBeNull();
    const fairPatch = await expectCode(
      a.resource.update({ name: rw, patch: { fair: true, description: "changed" } }),
      "BAD_REQUEST",
    );
    expect(fairPatch.cause).toMatchObject({ code: "INVALID_ARGUMENT", field: "fair" });
    expect(await a.resource.get({ name: rw })).toMatchObject({
      fair: false,
      description: POLICY.description,
    });
    expect(await a.resource.update({ name: rw, patch: { fair: false } })).toMatchObject({
      kind: "rwlock",
      fair: false,
    });
  });

  it("another tenant's rwlock is UNKNOWN_RESOURCE, like an unknown name, and its holder keeps the grant", async () => {
    const key = { resource: rw, businessKey: `foreign-${uid()}` };
    const held = granted(await tenant.caller().rwlock.acquireWrite({ ...key, ownerId: "mine" }));
    const b = other.caller();
    for (const call of [
      () => b.rwlock.acquireRead({ ...key, ownerId: "x" }),
      () => b.rwlock.acquireWrite({ ...key, ownerId: "x" }),
      () => b.rwlock.inspect(key),
      () => b.rwlock.release({ ...key, lockId: held.lockId, tier: held.tier }),
      () => b.rwlock.extend({ ...key, lockId: held.lockId, tier: held.tier }),
      () => b.rwlock.acquireRead({ resource: `rw:${uid()}`, businessKey: "k", ownerId: "x" }),
    ]) {
      expect(await causeOf(call())).toMatchObject({ code: "UNKNOWN_RESOURCE" });
    }
    expect((await tenant.caller().rwlock.inspect(key)).writer?.lockId).toBe(held.lockId);
    await tenant.caller().rwlock.release({ ...key, lockId: held.lockId, tier: held.tier });
  });
});

describe("rwlock audit, warden-admin and the MySQL tier", () => {
  it("audits grants and releases with mode and fence, and a grant that ran out as rwlock-expired", async () => {
    const key = { resource: rw, businessKey: `audit-${uid()}` };
    const a = tenant.caller();
    const reader = granted(await a.rwlock.acquireRead({ ...key, ownerId: "auditor" }));
    await a.rwlock.release({ ...key, lockId: reader.lockId, tier: reader.tier });
    const rows = await auditOf(reader.lockId, 2);
    expect(rows.map((row) => [row.type, row.reason])).toEqual([
      ["rwlock-grant", "read"],
      ["rwlock-release", "read"],
    ]);
    expect(rows.every((row) => row.fence === BigInt(reader.fence!))).toBe(true);
    expect(rows.every((row) => row.tenantId === tenant.id)).toBe(true);

    const lapsing = granted(await a.rwlock.acquireWrite({ ...key, ownerId: "gone", leaseMs: 300 }));
    const lapsed = await auditOf(lapsing.lockId, 2);
    expect(lapsed.map((row) => row.type)).toEqual(["rwlock-expired", "rwlock-grant"]);
    expect(lapsed[0]).toMatchObject({ fence: BigInt(lapsing.fence!) });
    expect(lapsed[0]!.reason).toMatch(/^write/);
  });

  it("warden-admin creates an rwlock with --kind rwlock --writer-preference and refuses permits", async () => {
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
    const name = `cli.rw.${uid()}`;
    const made = await run("resource", "create", tenant.id, name, "--kind", "rwlock");
    expect(made.code).toBe(0);
    expect(made.out).toContain("kind=rwlock writerPreference=true");
    const off = await run("resource", "update", name, "--writer-preference", "false");
    expect(off.code).toBe(0);
    expect(off.out).toContain("writerPreference=false");
    const permits = await run(
      "resource",
      "create",
      tenant.id,
      `${name}.b`,
      "--kind",
      "rwlock",
      "--permits",
      "2",
    );
    expect(permits.code).not.toBe(0);
    expect(permits.err).toContain("permits");
    expect(await h.prisma.resource.findUnique({ where: { name: `${name}.b` } })).toBeNull();
    expect(
      await h.prisma.resource.findUnique({
        where: { name },
        select: { kind: true, writerPreference: true },
      }),
    ).toEqual({ kind: "rwlock", writerPreference: false });
  });

  it("on the MySQL tier a writer is fenced above the Redis grants, and a dead holder's rows are swept", async () => {
    const key = { resource: rw, businessKey: `mysql-${uid()}` };
    const a = tenant.caller();
    const onRedis = granted(await a.rwlock.acquireRead({ ...key, ownerId: "r" }));
    await a.rwlock.release({ ...key, lockId: onRedis.lockId, tier: onRedis.tier });
    await h.services.locks.override("mysql", "rwlock-test", "read-write locks on MySQL");
    try {
      expect(await eventually(async () => h.services.locks.tier === "mysql")).toBe(true);
      const reader = granted(await a.rwlock.acquireRead({ ...key, ownerId: "r1" }));
      const second = granted(await a.rwlock.acquireRead({ ...key, ownerId: "r2" }));
      expect(reader.tier).toBe("mysql");
      expect(second.fence).toBe(reader.fence);
      expect(BigInt(reader.fence!)).toBeGreaterThan(BigInt(onRedis.fence!));
      expect(await a.rwlock.acquireWrite({ ...key, ownerId: "w" })).toMatchObject({
        granted: false,
        reason: "read-held",
        tier: "mysql",
      });
      for (const r of [reader, second]) {
        await a.rwlock.release({ ...key, lockId: r.lockId, tier: r.tier });
      }
      const writer = granted(await a.rwlock.acquireWrite({ ...key, ownerId: "w" }));
      expect(BigInt(writer.fence!)).toBeGreaterThan(BigInt(reader.fence!));
      await a.rwlock.release({ ...key, lockId: writer.lockId, tier: writer.tier });

      // A holder that never comes back: the sweeper removes its row without another acquire.
      const dead = granted(
        await a.rwlock.acquireRead({
          resource: rw,
          businessKey: `dead-${uid()}`,
          ownerId: "d",
          leaseMs: 300,
        }),
      );
      const db = await createConnection({ uri: h.db.url });
      try {
        const rowsOf = async () => {
          const [rows] = await db.query(
            "SELECT COUNT(*) AS n FROM mysql_rw_grant WHERE lock_id = ?",
            [dead.lockId],
          );
          return Number((rows as Array<{ n: number }>)[0]!.n);
        };
        expect(await rowsOf()).toBe(1);
        expect(await eventually(async () => (await rowsOf()) === 0, 20_000)).toBe(true);
      } finally {
        await db.end();
      }
    } finally {
      await h.services.locks.override("redis", "rwlock-test", "back to Redis");
      await h.services.locks.override(null, "rwlock-test", "automatic");
    }
  });
});
