import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContextInner } from "../src/context.js";
import type { LiveMessage } from "../src/live/live-bus.js";
import { createCaller } from "../src/routers/_app.js";
import { eventTypeSchema } from "../src/schemas/admin.js";
import { expectCode } from "./support/expect-trpc.js";
import { eventually } from "./support/fleet.js";
import {
  startHarness,
  uid,
  type Harness,
  type OperatorHandle,
  type TenantHandle,
} from "./support/harness.js";

// Operators on read-write locks and semaphores (docs/decisions/0185), on real Redis and
// MariaDB: keyState.keys and holder.list on an rwlock, rw waits in holder.waiters,
// force-release of rw grants and permits (audited with operator and reason, waiters woken,
// removedGrants), retire refused while grants or permits live, maxRenewals for rw grants,
// the new event types searchable; other tenants' names and bad input change nothing.

let h: Harness;
let tenant: TenantHandle;
let other: TenantHandle;
let operator: OperatorHandle;
let viewer: OperatorHandle;
let rw: string;
let sem: string;
let theirRw: string;
let theirSem: string;

const POLICY = {
  defaultLeaseMs: 10_000,
  maxLeaseMs: 30_000,
  maxRenewals: null,
  expectedHoldMs: 7_000,
  degrade: true,
  localFallback: "deny",
  fair: false,
  waitReplicas: 0,
  description: "rwlock operator test",
} as const;

async function registerRw(t: TenantHandle, maxRenewals: number | null = null): Promise<string> {
  const name = `rw:${uid()}`;
  await t.caller().resource.create({ ...POLICY, name, kind: "rwlock", maxRenewals });
  return name;
}

async function registerSem(t: TenantHandle, permits: number): Promise<string> {
  const name = `sem:${uid()}`;
  await t.caller().resource.create({ ...POLICY, name, kind: "semaphore", permits });
  return name;
}

type Caller = ReturnType<TenantHandle["caller"]>;
type RwReply = Awaited<ReturnType<Caller["rwlock"]["acquireRead"]>>;
type SemReply = Awaited<ReturnType<Caller["semaphore"]["acquire"]>>;

function granted(reply: RwReply): Extract<RwReply, { granted: true }> {
  if (!reply.granted) throw new Error(`expected a grant, got ${JSON.stringify(reply)}`);
  return reply;
}

function permitted(reply: SemReply): Extract<SemReply, { granted: true }> {
  if (!reply.granted) throw new Error(`expected a permit, got ${JSON.stringify(reply)}`);
  return reply;
}

/** The Warden error (code, field, message...) a call was refused with. */
async function causeOf(call: Promise<unknown>): Promise<Record<string, unknown>> {
  return call.then(
    () => expect.fail("expected a refusal"),
    (error: { cause?: Record<string, unknown> }) => error.cause ?? {},
  );
}

/** The first zod issue's path of a refused input (the field the typed error names). */
async function badField(call: Promise<unknown>): Promise<string> {
  const error = await expectCode(call, "BAD_REQUEST");
  const cause = error.cause as { issues?: Array<{ path: unknown[] }>; field?: string };
  return cause.issues?.[0]?.path.map(String).join(".") ?? cause.field ?? "?";
}

/**
 * A grant's audited steps of `type` as `event.search` reads them from its hold row: a
 * permit grant's (decision 0196) or a read or write grant's (decision 0199).
 */
async function auditRows(lockId: string, type: "rwlock-force-release" | "permit-force-release") {
  await h.services.audit.flush();
  const found = await viewer.caller().event.search({ lockId, type });
  return found.events.map((event) => ({
    type: event.type,
    tenantId: event.tenantId,
    resource: event.resource,
    businessKey: event.businessKey,
    fence: event.fence === null ? null : BigInt(event.fence),
    clientId: event.clientId,
    ownerId: event.ownerId,
    actor: event.actor,
    reason: event.reason,
    tier: event.tier,
  }));
}

const big = (fence: string | null | undefined): bigint => {
  if (fence === null || fence === undefined) throw new Error("expected a fence");
  return BigInt(fence);
};

/** Collects a tenant's live.events (the tRPC subscription, with its tenant scoping). */
async function subscribe(t: TenantHandle, resource: string) {
  const controller = new AbortController();
  const caller = createCaller(
    createContextInner(h.services, { apiKey: t.key, clientId: `watcher-${t.id}` }),
    { signal: controller.signal },
  );
  const iterable = (await caller.live.events({ resource })) as AsyncIterable<
    [string, LiveMessage, unknown]
  >;
  const messages: LiveMessage[] = [];
  const pump = (async () => {
    for await (const [, message] of iterable) messages.push(message);
  })().catch(() => undefined);
  // The first message is the current tier: the subscription is listening from then on.
  expect(await eventually(async () => messages.length > 0)).toBe(true);
  return {
    events: () => messages.flatMap((m) => (m.kind === "event" ? [m.event] : [])),
    async stop() {
      controller.abort();
      await pump;
    },
  };
}

beforeAll(async () => {
  h = await startHarness();
  tenant = await h.tenant();
  other = await h.tenant();
  operator = await h.operator("operator");
  viewer = await h.operator("viewer");
  rw = await registerRw(tenant);
  sem = await registerSem(tenant, 2);
  theirRw = await registerRw(other);
  theirSem = await registerSem(other, 2);
});
afterAll(() => h?.close());

describe("holder.list on an rwlock", () => {
  // First in the file, while the Redis keyspace is quiet (SCAN pages are stable).
  it("lists read and write grants with their kind, one key with businessKey, and pages every grant exactly once", async () => {
    const resource = await registerRw(tenant);
    const a = tenant.caller({ clientId: "lister" });
    const expected = new Map<string, { kind: "read" | "write"; businessKey: string }>();
    const writers: Array<Extract<RwReply, { granted: true }>> = [];
    const writeKeys = [0, 1, 2].map((i) => `w-${i}-${uid()}`);
    for (const [i, businessKey] of writeKeys.entries()) {
      const g = granted(await a.rwlock.acquireWrite({ resource, businessKey, ownerId: `w${i}` }));
      writers.push(g);
      expected.set(g.lockId, { kind: "write", businessKey });
    }
    const readKeys = [`r-0-${uid()}`, `r-1-${uid()}`];
    const readers: Array<Extract<RwReply, { granted: true }>> = [];
    for (const businessKey of readKeys) {
      for (const ownerId of ["ra", "rb"]) {
        const g = granted(await a.rwlock.acquireRead({ resource, businessKey, ownerId }));
        readers.push(g);
        expected.set(g.lockId, { kind: "read", businessKey });
      }
    }
    // A re-entered read is one grant with reentry 2.
    granted(await a.rwlock.acquireRead({ resource, businessKey: readKeys[0]!, ownerId: "ra" }));

    const all = await viewer.caller().holder.list({ resource });
    const one = await a.holder.list({ resource, businessKey: readKeys[0]! });
    expect(one.holders.map((g) => g.lockId).sort()).toEqual(
      [readers[0]!.lockId, readers[1]!.lockId].sort(),
    );
    const ra = one.holders.find((g) => g.lockId === readers[0]!.lockId)!;
    expect(ra).toEqual({
      kind: "read",
      resource,
      businessKey: readKeys[0],
      lockId: readers[0]!.lockId,
      fence: readers[0]!.fence,
      holder: { clientId: "lister", ownerId: "ra" },
      reentry: 2,
      permits: null,
      grantedAt: readers[0]!.grantedAt,
      renewals: 0,
      expiresAt: expect.any(Number) as number,
      ttlMs: expect.any(Number) as number,
      tier: "redis",
      expectedHoldMs: 7_000,
    });
    // Both readers of a key share the read fence.
    expect(one.holders.map((g) => g.fence)).toEqual([readers[0]!.fence, readers[0]!.fence]);
    const w = await a.holder.list({ resource, businessKey: writeKeys[1]! });
    expect(w.holders).toMatchObject([
      {
        kind: "write",
        lockId: writers[1]!.lockId,
        fence: writers[1]!.fence,
        reentry: 1,
        permits: null,
        holder: { clientId: "lister", ownerId: "w1" },
      },
    ]);
    // Only the tier named: nothing on MySQL.
    expect((await a.holder.list({ resource, tier: "mysql" })).holders).toEqual([]);
    expect((await a.holder.list({ resource, tier: "redis" })).holders).toHaveLength(7);

    // Two keys a page, through the tiers in turn: every grant once, nothing else.
    const seen = new Map<string, string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await a.holder.list({ resource, limit: 2, ...(cursor ? { cursor } : {}) });
      expect(new Set(page.holders.map((g) => g.businessKey)).size).toBeLessThanOrEqual(2);
      for (const g of page.holders) {
        expect(seen.has(g.lockId), `${g.lockId} listed twice`).toBe(false);
        seen.set(g.lockId, `${g.kind} ${g.businessKey}`);
      }
      if (page.cursor !== null)
        expect(page.cursor).toMatch(/^(redis|mysql|local)(,(redis|mysql|local))*:/);
      cursor = page.cursor ?? undefined;
      pages += 1;
      expect(pages).toBeLessThan(50);
    } while (cursor !== undefined);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(new Map([...seen].sort())).toEqual(
      new Map(
        [...expected].map(([lockId, g]) => [lockId, `${g.kind} ${g.businessKey}`] as const).sort(),
      ),
    );
    // The unpaged list: the same grants.
    expect(all.holders.map((g) => g.lockId).sort()).toEqual([...expected.keys()].sort());
    // With `tier`, the store's own cursor pages that tier alone.
    const onRedis: string[] = [];
    cursor = undefined;
    pages = 0;
    do {
      const page = await a.holder.list({
        resource,
        tier: "redis",
        limit: 2,
        ...(cursor ? { cursor } : {}),
      });
      onRedis.push(...page.holders.map((g) => g.lockId));
      if (page.cursor !== null) expect(page.cursor).not.toMatch(/^(redis|mysql|local):/);
      cursor = page.cursor ?? undefined;
      pages += 1;
      expect(pages).toBeLessThan(50);
    } while (cursor !== undefined);
    expect(onRedis.sort()).toEqual([...expected.keys()].sort());

    // A bad cursor is a typed INVALID_ARGUMENT on `cursor`, and lists nothing.
    for (const bad of [
      "not a cursor",
      "redis:abc",
      "redis:9:0:0",
      "mysql:!!",
      "elsewhere:",
      "redis,redis:",
      "redis,mysql,local,redis:",
      "x",
    ]) {
      const error = await expectCode(a.holder.list({ resource, cursor: bad }), "BAD_REQUEST");
      expect(error.cause, bad).toMatchObject({ code: "INVALID_ARGUMENT", field: "cursor" });
    }
    // With `tier`, the store's own cursor only.
    const tiered = await expectCode(
      a.holder.list({ resource, tier: "redis", cursor: "redis:" }),
      "BAD_REQUEST",
    );
    expect(tiered.cause).toMatchObject({ code: "INVALID_ARGUMENT", field: "cursor" });
    expect(await badField(a.holder.list({ resource, cursor: "" }))).toBe("cursor");
    expect(await badField(a.holder.list({ resource, limit: 0 }))).toBe("limit");
    // Nothing changed.
    const after = await a.holder.list({ resource, tier: "redis" });
    expect(after.holders.map((g) => g.lockId).sort()).toEqual([...expected.keys()].sort());
  });
});

describe("keyState.keys and holder.waiters on an rwlock", () => {
  it("shows a writer, then two readers with the shared read fence, then a waiting writer", async () => {
    const businessKey = `ks-${uid()}`;
    const idle = `idle-${uid()}`;
    const key = { resource: rw, businessKey };
    const a = tenant.caller({ clientId: "ks-client" });

    const writer = granted(await a.rwlock.acquireWrite({ ...key, ownerId: "writer" }));
    const held = await viewer.caller().keyState.keys({
      resource: rw,
      businessKeys: [businessKey, idle, businessKey],
    });
    expect(held).toMatchObject({ kind: "rwlock", totalPermits: null, writerPreference: true });
    expect(held.keys).toHaveLength(2);
    expect(held.keys[0]).toEqual({
      businessKey,
      writer: {
        lockId: writer.lockId,
        mode: "write",
        fence: writer.fence,
        holder: { clientId: "ks-client", ownerId: "writer" },
        grantedAt: writer.grantedAt,
        renewals: 0,
        expiresAt: expect.any(Number) as number,
        ttlMs: expect.any(Number) as number,
        tier: "redis",
      },
      readers: [],
      readFence: null,
      waitingWriters: 0,
    });
    expect(held.keys[1]).toEqual({
      businessKey: idle,
      writer: null,
      readers: [],
      readFence: null,
      waitingWriters: 0,
    });
    await a.rwlock.release({ ...key, lockId: writer.lockId, tier: writer.tier });

    const r1 = granted(await a.rwlock.acquireRead({ ...key, ownerId: "r1" }));
    const r2 = granted(await a.rwlock.acquireRead({ ...key, ownerId: "r2" }));
    expect(r2.fence).toBe(r1.fence);
    expect(big(r1.fence)).toBeGreaterThan(big(writer.fence));
    const reading = await tenant
      .caller()
      .keyState.keys({ resource: rw, businessKeys: [businessKey] });
    const state = reading.keys[0] as {
      writer: unknown;
      readers: Array<{ lockId: string; mode: string; fence: string | null; grantedAt: number }>;
      readFence: string | null;
      waitingWriters: number;
    };
    expect(state.writer).toBeNull();
    expect(state.readFence).toBe(r1.fence);
    expect(state.waitingWriters).toBe(0);
    expect(state.readers.map((r) => r.lockId).sort()).toEqual([r1.lockId, r2.lockId].sort());
    expect(state.readers.every((r) => r.mode === "read" && r.fence === r1.fence)).toBe(true);
    // Oldest grant first.
    expect(state.readers[0]!.grantedAt).toBeLessThanOrEqual(state.readers[1]!.grantedAt);

    // A waiting writer: counted on the key and listed as an rw waiter.
    const waiting = tenant
      .caller({ clientId: "waiter" })
      .rwlock.acquireWrite({ ...key, ownerId: "w-waits", waitMs: 20_000 });
    expect(
      await eventually(async () => {
        const seen = await viewer
          .caller()
          .keyState.keys({ resource: rw, businessKeys: [businessKey] });
        return (seen.keys[0] as { waitingWriters: number }).waitingWriters === 1;
      }),
    ).toBe(true);
    let waiters: Awaited<ReturnType<Caller["holder"]["waiters"]>> | undefined;
    expect(
      await eventually(async () => {
        waiters = await viewer.caller().holder.waiters({ resource: rw, businessKey });
        return waiters.waiters.length === 1;
      }),
    ).toBe(true);
    expect(waiters).toMatchObject({
      kind: "rw",
      fair: false,
      waiters: [{ resource: rw, businessKey, clientId: "waiter", ownerId: "w-waits", position: 0 }],
    });
    // The tenant's own key sees it too, on the whole resource.
    const mine = await tenant.caller().holder.waiters({ resource: rw });
    expect(mine.kind).toBe("rw");
    expect(mine.waiters.filter((w) => w.businessKey === businessKey)).toHaveLength(1);

    for (const r of [r1, r2]) await a.rwlock.release({ ...key, lockId: r.lockId, tier: r.tier });
    const won = granted(await waiting);
    expect(big(won.fence)).toBeGreaterThan(big(r1.fence));
    const after = await viewer
      .caller()
      .keyState.keys({ resource: rw, businessKeys: [businessKey] });
    expect(after.keys[0]).toMatchObject({
      writer: { lockId: won.lockId, mode: "write", fence: won.fence },
      readers: [],
      readFence: null,
      waitingWriters: 0,
    });
    expect((await viewer.caller().holder.waiters({ resource: rw, businessKey })).waiters).toEqual(
      [],
    );
    await tenant
      .caller({ clientId: "waiter" })
      .rwlock.release({ ...key, lockId: won.lockId, tier: won.tier });
  });
});

describe("holder.forceRelease of read-write grants", () => {
  it("by key: the writer goes, the waiting reader is granted above it, the holder is NOT_HOLDER, audited with operator and reason", async () => {
    const businessKey = `force-key-${uid()}`;
    const key = { resource: rw, businessKey };
    const live = await subscribe(tenant, rw);
    try {
      const holderCaller = tenant.caller({ clientId: "stuck" });
      const writer = granted(await holderCaller.rwlock.acquireWrite({ ...key, ownerId: "w1" }));
      const reading = tenant
        .caller({ clientId: "reader" })
        .rwlock.acquireRead({ ...key, ownerId: "r", waitMs: 20_000 });
      let waiters: Awaited<ReturnType<Caller["holder"]["waiters"]>> | undefined;
      expect(
        await eventually(async () => {
          waiters = await viewer.caller().holder.waiters({ resource: rw, businessKey });
          return waiters.waiters.length === 1;
        }),
      ).toBe(true);
      // A waiting read is listed as an rw wait too.
      expect(waiters).toMatchObject({
        kind: "rw",
        waiters: [{ clientId: "reader", ownerId: "r", position: 0 }],
      });

      const reply = await operator
        .caller()
        .holder.forceRelease({ ...key, reason: "stuck writer INC-7" });
      expect(reply.removed).toBeNull();
      expect(reply.removedGrants).toEqual([
        {
          kind: "write",
          lockId: writer.lockId,
          fence: writer.fence,
          holder: { clientId: "stuck", ownerId: "w1" },
        },
      ]);
      const reader = granted(await reading);
      expect(reader.mode).toBe("read");
      expect(big(reader.fence)).toBeGreaterThan(big(writer.fence));

      // The former writer: its release and its renewal are NOT_HOLDER.
      const release = await expectCode(
        holderCaller.rwlock.release({ ...key, lockId: writer.lockId, tier: writer.tier }),
        "PRECONDITION_FAILED",
      );
      expect(release.cause).toMatchObject({ code: "NOT_HOLDER" });
      expect(
        await causeOf(
          holderCaller.rwlock.extend({ ...key, lockId: writer.lockId, tier: writer.tier }),
        ),
      ).toMatchObject({ code: "NOT_HOLDER" });
      // The reader it let in holds on.
      expect((await tenant.caller().rwlock.inspect(key)).readers.map((r) => r.lockId)).toEqual([
        reader.lockId,
      ]);

      const rows = await auditRows(writer.lockId, "rwlock-force-release");
      expect(rows).toEqual([
        {
          type: "rwlock-force-release",
          tenantId: tenant.id,
          resource: rw,
          businessKey,
          fence: big(writer.fence),
          clientId: "stuck",
          ownerId: "w1",
          actor: `operator:${operator.username}`,
          reason: "write: stuck writer INC-7",
          tier: "redis",
        },
      ]);
      // The tenant's live feed shows it, with the operator.
      expect(
        await eventually(async () =>
          live
            .events()
            .some(
              (e) =>
                e.type === "rwlock-force-release" &&
                e.lockId === writer.lockId &&
                e.actor === `operator:${operator.username}`,
            ),
        ),
      ).toBe(true);
      await tenant
        .caller({ clientId: "reader" })
        .rwlock.release({ ...key, lockId: reader.lockId, tier: reader.tier });
    } finally {
      await live.stop();
    }
  });

  it("by lockId: only that reader goes; the waiting writer is granted once the last one goes, fenced above them", async () => {
    const businessKey = `force-id-${uid()}`;
    const key = { resource: rw, businessKey };
    const a = tenant.caller({ clientId: "readers" });
    const r1 = granted(await a.rwlock.acquireRead({ ...key, ownerId: "r1" }));
    const r2 = granted(await a.rwlock.acquireRead({ ...key, ownerId: "r2" }));
    const writing = tenant
      .caller({ clientId: "writer" })
      .rwlock.acquireWrite({ ...key, ownerId: "w", waitMs: 20_000 });
    expect(await eventually(async () => (await a.rwlock.inspect(key)).waitingWriters === 1)).toBe(
      true,
    );

    // An unknown lockId, and another key's: nothing removed, nothing audited.
    const strangerKey = { resource: rw, businessKey: `elsewhere-${uid()}` };
    const stranger = granted(await a.rwlock.acquireRead({ ...strangerKey, ownerId: "x" }));
    for (const lockId of ["A".repeat(22), stranger.lockId]) {
      const none = await operator
        .caller()
        .holder.forceRelease({ ...key, lockId, reason: "wrong id on purpose" });
      expect(none).toMatchObject({ removed: null, removedGrants: [] });
    }
    expect((await auditRows(stranger.lockId, "rwlock-force-release")).length).toBe(0);
    expect((await a.rwlock.inspect(strangerKey)).readers.map((r) => r.lockId)).toEqual([
      stranger.lockId,
    ]);

    const first = await operator
      .caller()
      .holder.forceRelease({ ...key, lockId: r1.lockId, reason: "reader hung" });
    expect(first.removedGrants).toEqual([
      {
        kind: "read",
        lockId: r1.lockId,
        fence: r1.fence,
        holder: { clientId: "readers", ownerId: "r1" },
      },
    ]);
    // r2 still reads: the writer still waits.
    const between = await a.rwlock.inspect(key);
    expect(between.writer).toBeNull();
    expect(between.readers.map((r) => r.lockId)).toEqual([r2.lockId]);
    expect(between.waitingWriters).toBe(1);

    const second = await operator
      .caller()
      .holder.forceRelease({ ...key, lockId: r2.lockId, reason: "reader hung too" });
    expect(second.removedGrants.map((g) => [g.kind, g.lockId])).toEqual([["read", r2.lockId]]);
    const writer = granted(await writing);
    expect(big(writer.fence)).toBeGreaterThan(big(r1.fence));

    for (const r of [r1, r2]) {
      expect(
        await causeOf(a.rwlock.release({ ...key, lockId: r.lockId, tier: r.tier })),
      ).toMatchObject({ code: "NOT_HOLDER" });
      expect(
        await causeOf(a.rwlock.extend({ ...key, lockId: r.lockId, tier: r.tier })),
      ).toMatchObject({ code: "NOT_HOLDER" });
    }
    expect(await auditRows(r1.lockId, "rwlock-force-release")).toMatchObject([
      { actor: `operator:${operator.username}`, reason: "read: reader hung", ownerId: "r1" },
    ]);
    expect(await auditRows(r2.lockId, "rwlock-force-release")).toMatchObject([
      { actor: `operator:${operator.username}`, reason: "read: reader hung too", ownerId: "r2" },
    ]);
    // The writer was not touched by any of it.
    expect((await a.rwlock.inspect(key)).writer?.lockId).toBe(writer.lockId);
    await tenant
      .caller({ clientId: "writer" })
      .rwlock.release({ ...key, lockId: writer.lockId, tier: writer.tier });
    await a.rwlock.release({ ...strangerKey, lockId: stranger.lockId, tier: stranger.tier });
  });
});

describe("holder.forceRelease of semaphore permits", () => {
  it("removes one permit by lockId (the waiter is granted above it), then the key's permits, audited permit-force-release", async () => {
    const businessKey = `permits-${uid()}`;
    const key = { resource: sem, businessKey };
    const a = tenant.caller({ clientId: "workers" });
    const g1 = permitted(await a.semaphore.acquire({ ...key, ownerId: "p1" }));
    const g2 = permitted(await a.semaphore.acquire({ ...key, ownerId: "p2" }));
    const waiting = tenant
      .caller({ clientId: "late" })
      .semaphore.acquire({ ...key, ownerId: "p3", waitMs: 20_000 });
    let waiters: Awaited<ReturnType<Caller["holder"]["waiters"]>> | undefined;
    expect(
      await eventually(async () => {
        waiters = await viewer.caller().holder.waiters({ resource: sem, businessKey });
        return waiters.waiters.length === 1;
      }),
    ).toBe(true);
    expect(waiters).toMatchObject({ kind: "permit", waiters: [{ ownerId: "p3", position: 0 }] });

    // Not a holder's lockId: nothing goes.
    const none = await operator
      .caller()
      .holder.forceRelease({ ...key, lockId: "B".repeat(22), reason: "nobody" });
    expect(none.removedGrants).toEqual([]);

    const one = await operator
      .caller()
      .holder.forceRelease({ ...key, lockId: g1.lockId, reason: "worker p1 is gone" });
    expect(one).toMatchObject({ removed: null });
    expect(one.removedGrants).toEqual([
      {
        kind: "permit",
        lockId: g1.lockId,
        fence: g1.fence,
        holder: { clientId: "workers", ownerId: "p1" },
      },
    ]);
    const g3 = permitted(await waiting);
    expect(big(g3.fence)).toBeGreaterThan(big(g2.fence));
    expect(big(g3.fence)).toBeGreaterThan(big(g1.fence));
    const state = await viewer
      .caller()
      .keyState.keys({ resource: sem, businessKeys: [businessKey] });
    expect(state.keys[0]).toMatchObject({ inUse: 2 });

    const rest = await operator.caller().holder.forceRelease({ ...key, reason: "drain the key" });
    expect(rest.removedGrants.map((g) => [g.kind, g.lockId, g.fence]).sort()).toEqual(
      [
        ["permit", g2.lockId, g2.fence],
        ["permit", g3.lockId, g3.fence],
      ].sort(),
    );
    expect((await tenant.caller().semaphore.inspect(key)).holders).toEqual([]);

    for (const g of [g1, g2]) {
      expect(
        await causeOf(a.semaphore.release({ ...key, lockId: g.lockId, tier: g.tier })),
      ).toMatchObject({ code: "NOT_HOLDER" });
      expect(
        await causeOf(a.semaphore.extend({ ...key, lockId: g.lockId, tier: g.tier })),
      ).toMatchObject({ code: "NOT_HOLDER" });
    }
    expect(await auditRows(g1.lockId, "permit-force-release")).toEqual([
      {
        type: "permit-force-release",
        tenantId: tenant.id,
        resource: sem,
        businessKey,
        fence: big(g1.fence),
        clientId: "workers",
        ownerId: "p1",
        actor: `operator:${operator.username}`,
        reason: "permits 1: worker p1 is gone",
        tier: "redis",
      },
    ]);
    expect(await auditRows(g3.lockId, "permit-force-release")).toMatchObject([
      { actor: `operator:${operator.username}`, reason: "permits 1: drain the key", ownerId: "p3" },
    ]);
    expect((await auditRows("B".repeat(22), "permit-force-release")).length).toBe(0);
  });
});

describe("resource.retire while rw grants or permits live", () => {
  it("is CONFLICT while an rw grant lives and OK once it is released; same for a permit", async () => {
    const a = tenant.caller();
    const rwName = await registerRw(tenant);
    const semName = await registerSem(tenant, 3);
    const reader = granted(
      await a.rwlock.acquireRead({ resource: rwName, businessKey: "k", ownerId: "r" }),
    );
    const permit = permitted(
      await a.semaphore.acquire({ resource: semName, businessKey: "k", ownerId: "p" }),
    );
    for (const name of [rwName, semName]) {
      const refused = await expectCode(a.resource.retire({ name }), "CONFLICT");
      expect(refused.cause).toMatchObject({ code: "CONFLICT" });
      expect(refused.message).toContain(name);
      expect((await a.resource.get({ name })).retiredAt).toBeNull();
    }
    // Still live: the holders keep working.
    await a.rwlock.extend({
      resource: rwName,
      businessKey: "k",
      lockId: reader.lockId,
      tier: reader.tier,
    });
    await a.rwlock.release({
      resource: rwName,
      businessKey: "k",
      lockId: reader.lockId,
      tier: reader.tier,
    });
    // A writer now, removed by an operator rather than released.
    const writer = granted(
      await a.rwlock.acquireWrite({ resource: rwName, businessKey: "k2", ownerId: "w" }),
    );
    await expectCode(a.resource.retire({ name: rwName }), "CONFLICT");
    const forced = await operator
      .caller()
      .holder.forceRelease({ resource: rwName, businessKey: "k2", reason: "retire it" });
    expect(forced.removedGrants.map((g) => g.lockId)).toEqual([writer.lockId]);
    expect((await a.resource.retire({ name: rwName })).retiredAt).not.toBeNull();
    expect(
      await causeOf(a.rwlock.acquireRead({ resource: rwName, businessKey: "k", ownerId: "r" })),
    ).toMatchObject({ code: "UNKNOWN_RESOURCE" });

    await a.semaphore.release({
      resource: semName,
      businessKey: "k",
      lockId: permit.lockId,
      tier: permit.tier,
    });
    expect((await a.resource.retire({ name: semName })).retiredAt).not.toBeNull();
  });
});

describe("maxRenewals for rw grants", () => {
  it("a renewal past the limit is LEASE_LOST and audited renewal-refused; the grant is left to run out", async () => {
    const limited = await registerRw(tenant, 2);
    const a = tenant.caller();
    for (const mode of ["read", "write"] as const) {
      const key = { resource: limited, businessKey: `renew-${mode}-${uid()}` };
      const grant = granted(
        mode === "read"
          ? await a.rwlock.acquireRead({ ...key, ownerId: "o" })
          : await a.rwlock.acquireWrite({ ...key, ownerId: "o" }),
      );
      expect(grant.maxRenewals).toBe(2);
      for (const renewals of [1, 2]) {
        const extended = await a.rwlock.extend({ ...key, lockId: grant.lockId, tier: grant.tier });
        expect(extended.grant).toMatchObject({ lockId: grant.lockId, mode, renewals });
      }
      const refused = await expectCode(
        a.rwlock.extend({ ...key, lockId: grant.lockId, tier: grant.tier }),
        "PRECONDITION_FAILED",
      );
      expect(refused.cause).toMatchObject({ code: "LEASE_LOST" });
      expect(refused.message).toContain("renewal limit");
      // Not touched: still held with 2 renewals.
      const seen = await a.rwlock.inspect(key);
      const still = mode === "write" ? seen.writer : seen.readers[0];
      expect(still).toMatchObject({ lockId: grant.lockId, renewals: 2 });
      await h.services.audit.flush();
      const events = await a.event.search({ lockId: grant.lockId, type: "renewal-refused" });
      expect(events.events).toMatchObject([
        {
          type: "renewal-refused",
          resource: limited,
          fence: grant.fence,
          reason: "renewal-limit",
          ownerId: "o",
        },
      ]);
      await a.rwlock.release({ ...key, lockId: grant.lockId, tier: grant.tier });
      // Once gone, a renewal is NOT_HOLDER, not a limit.
      expect(
        await causeOf(a.rwlock.extend({ ...key, lockId: grant.lockId, tier: grant.tier })),
      ).toMatchObject({ code: "NOT_HOLDER" });
    }
  });
});

describe("another tenant's names and bad input", () => {
  it("another tenant's rwlock or semaphore is exactly an unknown one, and its holders keep their grants", async () => {
    const b = other.caller();
    const businessKey = `foreign-${uid()}`;
    const mine = granted(
      await tenant.caller().rwlock.acquireWrite({ resource: rw, businessKey, ownerId: "mine" }),
    );
    const calls = (resource: string) => [
      () => b.keyState.keys({ resource, businessKeys: [businessKey] }),
      () => b.holder.list({ resource }),
      () => b.holder.list({ resource, businessKey }),
      () => b.holder.waiters({ resource }),
      () => b.holder.waiters({ resource, businessKey }),
      () => b.resource.retire({ name: resource }),
    ];
    for (const name of [rw, sem]) {
      const unknown = `${name.split(":")[0]!}:${uid()}`;
      const unknownCalls = calls(unknown);
      for (const [i, call] of calls(name).entries()) {
        const foreign = await expectCode(call(), "NOT_FOUND");
        const missing = await expectCode(unknownCalls[i]!(), "NOT_FOUND");
        expect(foreign.cause, `${name} call ${i}`).toMatchObject({
          code: "UNKNOWN_RESOURCE",
          resource: name,
        });
        expect(missing.cause).toMatchObject({ code: "UNKNOWN_RESOURCE", resource: unknown });
        expect(foreign.message.replaceAll(name, "<name>")).toBe(
          missing.message.replaceAll(unknown, "<name>"),
        );
        expect(Object.keys(foreign.cause ?? {}).sort()).toEqual(
          Object.keys(missing.cause ?? {}).sort(),
        );
      }
      // The audit search names no resource it may not see: empty, as for an unknown one.
      expect((await b.event.search({ resource: name })).events).toEqual([]);
      expect((await b.event.search({ resource: unknown })).events).toEqual([]);
      // Not retired by the refusal.
      expect((await tenant.caller().resource.get({ name })).retiredAt).toBeNull();
    }
    // My lockId on their own resource's same key: NOT_HOLDER, like a lockId never granted.
    const theirKey = { resource: theirRw, businessKey };
    const withMine = await causeOf(
      b.rwlock.release({ ...theirKey, lockId: mine.lockId, tier: mine.tier }),
    );
    const fake = "C".repeat(22);
    const withFake = await causeOf(b.rwlock.release({ ...theirKey, lockId: fake, tier: "redis" }));
    expect(withMine).toMatchObject({ code: "NOT_HOLDER" });
    expect(withFake).toMatchObject({ code: "NOT_HOLDER" });
    expect(String(withMine["message"]).replaceAll(mine.lockId, "<id>")).toBe(
      String(withFake["message"]).replaceAll(fake, "<id>"),
    );
    // An operator naming my grant's lockId on their resource removes nothing.
    const cross = await operator
      .caller()
      .holder.forceRelease({ ...theirKey, lockId: mine.lockId, reason: "wrong resource" });
    const unknown = await operator
      .caller()
      .holder.forceRelease({ ...theirKey, lockId: fake, reason: "wrong resource" });
    expect(cross).toEqual(unknown);
    expect(cross.removedGrants).toEqual([]);
    // Their semaphore: the same.
    const semCross = await operator.caller().holder.forceRelease({
      resource: theirSem,
      businessKey,
      lockId: mine.lockId,
      reason: "wrong resource",
    });
    expect(semCross.removedGrants).toEqual([]);
    // An unknown resource is UNKNOWN_RESOURCE to an operator too.
    expect(
      await causeOf(
        operator.caller().holder.forceRelease({
          resource: `rw:${uid()}`,
          businessKey,
          reason: "nothing there",
        }),
      ),
    ).toMatchObject({ code: "UNKNOWN_RESOURCE" });

    // Mine is untouched, and nothing was audited as force-released.
    expect(
      (await tenant.caller().rwlock.inspect({ resource: rw, businessKey })).writer?.lockId,
    ).toBe(mine.lockId);
    expect(await auditRows(mine.lockId, "rwlock-force-release")).toEqual([]);
    await tenant
      .caller()
      .rwlock.release({ resource: rw, businessKey, lockId: mine.lockId, tier: mine.tier });
  });

  it("bad input, a tenant key or a viewer is a typed error that removes nothing", async () => {
    const businessKey = `bad-${uid()}`;
    const key = { resource: rw, businessKey };
    const grant = granted(await tenant.caller().rwlock.acquireRead({ ...key, ownerId: "keep" }));
    const permit = permitted(
      await tenant.caller().semaphore.acquire({ resource: sem, businessKey, ownerId: "keep" }),
    );
    const op = operator.caller();
    for (const resource of [rw, sem]) {
      const at = { resource, businessKey };
      expect(await badField(op.holder.forceRelease({ ...at, reason: "" }))).toBe("reason");
      expect(await badField(op.holder.forceRelease({ ...at, reason: "   x   " }))).toBe("reason");
      expect(await badField(op.holder.forceRelease({ ...at, reason: "x".repeat(501) }))).toBe(
        "reason",
      );
      expect(
        await badField(op.holder.forceRelease({ ...at, lockId: "short", reason: "bad id" })),
      ).toBe("lockId");
      expect(
        await badField(
          op.holder.forceRelease({ ...at, lockId: `${"A".repeat(21)}!`, reason: "bad id" }),
        ),
      ).toBe("lockId");
      expect(
        await badField(op.holder.forceRelease({ resource, businessKey: "", reason: "empty key" })),
      ).toBe("businessKey");
      expect(
        await badField(
          op.holder.forceRelease({ resource: "bad resource!", businessKey, reason: "bad name" }),
        ),
      ).toBe("resource");
      // Who may not: the tenant's own key, a viewer, nobody.
      await expectCode(
        tenant.caller().holder.forceRelease({ ...at, reason: "my own key" }),
        "FORBIDDEN",
      );
      await expectCode(
        viewer.caller().holder.forceRelease({ ...at, reason: "only a viewer" }),
        "FORBIDDEN",
      );
      await expectCode(
        h.anonymous().holder.forceRelease({ ...at, reason: "nobody" }),
        "UNAUTHORIZED",
      );
    }
    await expectCode(
      tenant.caller().keyState.keys({ resource: rw, businessKeys: [] }),
      "BAD_REQUEST",
    );
    // Nothing changed.
    expect((await tenant.caller().rwlock.inspect(key)).readers.map((r) => r.lockId)).toEqual([
      grant.lockId,
    ]);
    expect(
      (await tenant.caller().semaphore.inspect({ resource: sem, businessKey })).holders.map(
        (p) => p.lockId,
      ),
    ).toEqual([permit.lockId]);
    expect(await auditRows(grant.lockId, "rwlock-force-release")).toEqual([]);
    expect(await auditRows(permit.lockId, "permit-force-release")).toEqual([]);
    await tenant.caller().rwlock.release({ ...key, lockId: grant.lockId, tier: grant.tier });
    await tenant
      .caller()
      .semaphore.release({ resource: sem, businessKey, lockId: permit.lockId, tier: permit.tier });
  });
});

describe("rw grants on more than one tier", () => {
  it("holder.list pages across Redis and MySQL, retire sees both, force-release removes the MySQL grants", async () => {
    const resource = await registerRw(tenant);
    const a = tenant.caller({ clientId: "tiers" });
    const onRedis = granted(
      await a.rwlock.acquireWrite({ resource, businessKey: "on-redis", ownerId: "w" }),
    );
    expect(onRedis.tier).toBe("redis");
    await h.services.locks.override("mysql", "rwlock-operator-test", "grants on MySQL");
    try {
      expect(await eventually(async () => h.services.locks.tier === "mysql")).toBe(true);
      const m1 = granted(
        await a.rwlock.acquireRead({ resource, businessKey: "on-mysql", ownerId: "r1" }),
      );
      const m2 = granted(
        await a.rwlock.acquireRead({ resource, businessKey: "on-mysql", ownerId: "r2" }),
      );
      expect([m1.tier, m2.tier]).toEqual(["mysql", "mysql"]);

      const seen: Array<[string, string]> = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await a.holder.list({ resource, limit: 1, ...(cursor ? { cursor } : {}) });
        seen.push(
          ...page.holders.map((g) => [g.lockId, `${g.kind}@${g.tier}`] as [string, string]),
        );
        cursor = page.cursor ?? undefined;
        pages += 1;
        expect(pages).toBeLessThan(20);
      } while (cursor !== undefined);
      expect(seen.sort()).toEqual(
        [
          [onRedis.lockId, "write@redis"],
          [m1.lockId, "read@mysql"],
          [m2.lockId, "read@mysql"],
        ].sort(),
      );
      expect(new Set(seen.map(([id]) => id)).size).toBe(3);
      expect(
        (await a.holder.list({ resource, tier: "redis" })).holders.map((g) => g.lockId),
      ).toEqual([onRedis.lockId]);
      expect(
        (await a.holder.list({ resource, tier: "mysql" })).holders.map((g) => g.lockId).sort(),
      ).toEqual([m1.lockId, m2.lockId].sort());
      const ks = await viewer.caller().keyState.keys({ resource, businessKeys: ["on-mysql"] });
      expect(ks.keys[0]).toMatchObject({ readFence: m1.fence, writer: null });

      await expectCode(a.resource.retire({ name: resource }), "CONFLICT");
      const forced = await operator
        .caller()
        .holder.forceRelease({ resource, businessKey: "on-mysql", reason: "mysql readers stuck" });
      expect(forced.removedGrants.map((g) => [g.kind, g.lockId]).sort()).toEqual(
        [
          ["read", m1.lockId],
          ["read", m2.lockId],
        ].sort(),
      );
      expect(await auditRows(m1.lockId, "rwlock-force-release")).toMatchObject([
        { tier: "mysql", actor: `operator:${operator.username}` },
      ]);
      expect((await a.holder.list({ resource, tier: "mysql" })).holders).toEqual([]);
      expect(
        await causeOf(
          a.rwlock.release({ resource, businessKey: "on-mysql", lockId: m1.lockId, tier: m1.tier }),
        ),
      ).toMatchObject({ code: "NOT_HOLDER" });
      // The Redis writer, granted before the switch, still stops a retire.
      await expectCode(a.resource.retire({ name: resource }), "CONFLICT");
    } finally {
      await h.services.locks.override("redis", "rwlock-operator-test", "back to Redis");
      await h.services.locks.override(null, "rwlock-operator-test", "automatic");
    }
    expect(await eventually(async () => h.services.locks.tier === "redis")).toBe(true);
    await a.rwlock.release({
      resource,
      businessKey: "on-redis",
      lockId: onRedis.lockId,
      tier: onRedis.tier,
    });
    expect((await a.resource.retire({ name: resource })).retiredAt).not.toBeNull();
  });
});

describe("event.search by type", () => {
  it("finds each new event type, and every type written so far is a filter it accepts", async () => {
    // A permit nobody renews: reported permit-expired after its lease and a grace.
    const lapseKey = `lapse-${uid()}`;
    const lapsing = permitted(
      await tenant
        .caller()
        .semaphore.acquire({ resource: sem, businessKey: lapseKey, ownerId: "l", leaseMs: 300 }),
    );
    const releasedKey = `rel-${uid()}`;
    const released = permitted(
      await tenant
        .caller()
        .semaphore.acquire({ resource: sem, businessKey: releasedKey, ownerId: "r" }),
    );
    await tenant.caller().semaphore.release({
      resource: sem,
      businessKey: releasedKey,
      lockId: released.lockId,
      tier: released.tier,
    });
    expect(
      await eventually(async () => {
        await h.services.audit.flush();
        const hold = await h.prisma.lockHold.findUnique({ where: { lockId: lapsing.lockId } });
        return hold?.endType === "expired";
      }, 20_000),
    ).toBe(true);

    const fresh = [
      "rwlock-force-release",
      "rwlock-grant",
      "rwlock-release",
      "permit-force-release",
      "permit-grant",
      "permit-release",
      "permit-expired",
    ] as const;
    for (const type of fresh) {
      const asOperator = await viewer.caller().event.search({ type, limit: 500 });
      expect(asOperator.events.length, type).toBeGreaterThan(0);
      expect(
        asOperator.events.every((e) => e.type === type),
        type,
      ).toBe(true);
      // The tenant finds its own, the other tenant none of them.
      const asTenant = await tenant.caller().event.search({ type, limit: 500 });
      expect(asTenant.events.length, type).toBeGreaterThan(0);
      expect(
        asTenant.events.every((e) => e.tenantId === tenant.id),
        type,
      ).toBe(true);
      expect((await other.caller().event.search({ type })).events, type).toEqual([]);
    }
    const forced = await tenant
      .caller()
      .event.search({ resource: sem, type: "permit-force-release" });
    expect(forced.events.every((e) => e.actor === `operator:${operator.username}`)).toBe(true);
    const expired = await tenant
      .caller()
      .event.search({ lockId: lapsing.lockId, type: "permit-expired" });
    expect(expired.events).toMatchObject([{ resource: sem, fence: lapsing.fence, ownerId: "l" }]);

    // Every type this file's server wrote is a type filter that finds its rows: the event
    // rows' types, and the permit and read-write steps read from hold rows (decisions 0196
    // and 0199).
    const written = await h.prisma.lockEvent.findMany({
      distinct: ["type"],
      select: { type: true },
    });
    const types = [...new Set([...written.map((row) => row.type), ...fresh])];
    expect(types).toEqual(
      expect.arrayContaining(["rwlock-force-release", "renewal-refused", "rwlock-grant"]),
    );
    expect(written.filter((row) => /^(permit|rwlock)-/.test(row.type))).toEqual([]);
    for (const type of types) {
      expect(eventTypeSchema.safeParse(type).success, type).toBe(true);
      const found = await viewer
        .caller()
        .event.search({ type: type as (typeof eventTypeSchema.options)[number], limit: 1 });
      expect(
        found.events.map((e) => e.type),
        type,
      ).toEqual([type]);
    }
    await expectCode(
      viewer.caller().event.search({ type: "no-such-type" as "grant" }),
      "BAD_REQUEST",
    );
  });
});
