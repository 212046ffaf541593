import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContextInner } from "../src/context.js";
import type { LiveMessage } from "../src/live/live-bus.js";
import { createCaller } from "../src/routers/_app.js";
import { expectCode } from "./support/expect-trpc.js";
import {
  registerResource,
  startHarness,
  uid,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";

// Semaphore permits in the holder lists and the live feed (docs/decisions/0162), on real
// Redis and MariaDB.

let h: Harness;
let tenant: TenantHandle;
let other: TenantHandle;
let semaphore: string;
let theirs: string;
let mutex: string;

const POLICY = {
  defaultLeaseMs: 5_000,
  maxLeaseMs: 20_000,
  maxRenewals: null,
  expectedHoldMs: 4_000,
  degrade: true,
  localFallback: "deny",
  fair: false,
  waitReplicas: 0,
  description: "semaphore holders test",
} as const;

async function registerSemaphore(t: TenantHandle, permits: number): Promise<string> {
  const name = `sem:${uid()}`;
  await t.caller().resource.create({ ...POLICY, name, kind: "semaphore", permits });
  return name;
}

/** Polls `find` every 25 ms for up to 15 s; its first defined answer. */
async function eventually<T>(find: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error("nothing within 15 s");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Collects a tenant's live.events (the tRPC subscription, with its tenant scoping). */
async function subscribe(t: TenantHandle, resource?: string) {
  const controller = new AbortController();
  const caller = createCaller(
    createContextInner(h.services, { apiKey: t.key, clientId: `watcher-${t.id}` }),
    { signal: controller.signal },
  );
  // Each item is tRPC's tracked envelope: [id, message, marker].
  const iterable = (await caller.live.events(
    resource === undefined ? {} : { resource },
  )) as AsyncIterable<[string, LiveMessage, unknown]>;
  const events: LiveMessage[] = [];
  const pump = (async () => {
    for await (const [, message] of iterable) events.push(message);
  })().catch(() => undefined);
  // The first message is the current tier: the subscription is listening from then on.
  await eventually(() => (events.length > 0 ? true : undefined));
  return {
    events: () => events.flatMap((m) => (m.kind === "event" ? [m.event] : [])),
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
  semaphore = await registerSemaphore(tenant, 3);
  theirs = await registerSemaphore(other, 3);
  mutex = await registerResource(tenant);
});
afterAll(() => h?.close());

describe("holder.list shows permits", () => {
  it("lists every live permit grant of a semaphore resource, marked kind permit, across keys", async () => {
    const a = tenant.caller();
    const k1 = `list-1-${uid()}`;
    const k2 = `list-2-${uid()}`;
    const g1 = await a.semaphore.acquire({
      resource: semaphore,
      businessKey: k1,
      ownerId: "w1",
      permits: 2,
    });
    const g2 = await a.semaphore.acquire({ resource: semaphore, businessKey: k1, ownerId: "w2" });
    const g3 = await a.semaphore.acquire({ resource: semaphore, businessKey: k2, ownerId: "w3" });
    if (!g1.granted || !g2.granted || !g3.granted) throw new Error("expected grants");

    const listed = await a.holder.list({ resource: semaphore });
    const mine = listed.holders.filter((p) => p.businessKey === k1 || p.businessKey === k2);
    expect(mine.map((p) => p.lockId).sort()).toEqual([g1.lockId, g2.lockId, g3.lockId].sort());
    const first = mine.find((p) => p.lockId === g1.lockId)!;
    expect(first).toMatchObject({
      kind: "permit",
      resource: semaphore,
      businessKey: k1,
      fence: g1.fence,
      permits: 2,
      holder: { clientId: `client-${tenant.id}`, ownerId: "w1" },
      grantedAt: g1.grantedAt,
      reentry: 1,
      tier: "redis",
      expectedHoldMs: 4_000,
    });
    expect(first.expiresAt).toBeGreaterThan(first.grantedAt);

    // One key; and the page of one key at a time, with a cursor to the next.
    const one = await a.holder.list({ resource: semaphore, businessKey: k2 });
    expect(one.holders.map((p) => p.lockId)).toEqual([g3.lockId]);
    // Redis pages follow its SCAN walk: hash order, and (like SCAN) a key may show up twice
    // when the keyspace is resized meanwhile; every key live throughout is on some page.
    const keys = new Set(listed.holders.map((p) => p.businessKey));
    const page1 = await a.holder.list({ resource: semaphore, limit: 1 });
    expect(page1.cursor).toMatch(/^redis,mysql,local:./);
    const walked: string[] = [];
    let page = page1;
    for (let pages = 0; ; pages += 1) {
      const pageKeys = new Set(page.holders.map((p) => p.businessKey));
      expect(pageKeys.size).toBeLessThanOrEqual(1);
      walked.push(...pageKeys);
      if (page.cursor === null || pages > keys.size + 20) break;
      page = await a.holder.list({ resource: semaphore, limit: 1, cursor: page.cursor });
    }
    expect(page.cursor).toBeNull();
    expect(walked).toEqual(expect.arrayContaining([k1, k2]));
    for (const key of walked) expect(keys).toContain(key);

    // Released permits leave the list at once.
    await a.semaphore.release({
      resource: semaphore,
      businessKey: k1,
      lockId: g1.lockId,
      tier: g1.tier,
    });
    const after = await a.holder.list({ resource: semaphore, businessKey: k1 });
    expect(after.holders.map((p) => p.lockId)).toEqual([g2.lockId]);

    // An operator's console sees the same permits.
    const operator = await h.operator("viewer");
    const seen = await operator.caller().holder.list({ resource: semaphore, businessKey: k2 });
    expect(seen.holders).toMatchObject([{ kind: "permit", lockId: g3.lockId, permits: 1 }]);
  });

  it("a mutex's leases are kind lock with permits null", async () => {
    const a = tenant.caller();
    const key = `lock-${uid()}`;
    const grant = await a.lock.acquire({ resource: mutex, businessKey: key, ownerId: "o" });
    if (!grant.granted) throw new Error("expected a grant");
    const listed = await a.holder.list({ resource: mutex, businessKey: key });
    expect(listed.holders).toMatchObject([{ kind: "lock", permits: null, lockId: grant.lockId }]);
    const waiters = await a.holder.waiters({ resource: mutex });
    expect(waiters.kind).toBe("lock");
  });

  it("another tenant's semaphore is UNKNOWN_RESOURCE like an unknown one; its permits never show in mine", async () => {
    const b = other.caller();
    const key = `scoped-${uid()}`;
    const their = await b.semaphore.acquire({ resource: theirs, businessKey: key, ownerId: "x" });
    if (!their.granted) throw new Error("expected a grant");
    const a = tenant.caller();
    await expectCode(a.holder.list({ resource: theirs }), "NOT_FOUND");
    await expectCode(a.holder.list({ resource: `sem:${uid()}` }), "NOT_FOUND");
    await expectCode(a.holder.waiters({ resource: theirs }), "NOT_FOUND");
    // The same key on my resource: none of theirs.
    const mine = await a.holder.list({ resource: semaphore, businessKey: key });
    expect(mine.holders).toEqual([]);
    // Theirs are listed for them.
    const listed = await b.holder.list({ resource: theirs });
    expect(listed.holders.map((p) => p.lockId)).toContain(their.lockId);
  });

  it("bad input is a typed error and lists nothing", async () => {
    const a = tenant.caller();
    await expectCode(a.holder.list({ resource: semaphore, cursor: "not-a-cursor" }), "BAD_REQUEST");
    await expectCode(a.holder.list({ resource: semaphore, limit: 0 }), "BAD_REQUEST");
  });
});

describe("permit events in the live feed", () => {
  it("grant, release and expiry reach live.events with the permit's facts, for its tenant only", async () => {
    const mine = await subscribe(tenant, semaphore);
    const stranger = await subscribe(other);
    try {
      const a = tenant.caller();
      const key = `live-${uid()}`;
      const kept = await a.semaphore.acquire({
        resource: semaphore,
        businessKey: key,
        ownerId: "k",
      });
      const lapsing = await a.semaphore.acquire({
        resource: semaphore,
        businessKey: key,
        ownerId: "lapse",
        permits: 2,
        leaseMs: 300,
      });
      if (!kept.granted || !lapsing.granted) throw new Error("expected grants");
      await a.semaphore.release({
        resource: semaphore,
        businessKey: key,
        lockId: kept.lockId,
        tier: kept.tier,
      });

      const grant = await eventually(() =>
        mine.events().find((e) => e.type === "permit-grant" && e.lockId === kept.lockId),
      );
      expect(grant).toMatchObject({
        resource: semaphore,
        businessKey: key,
        fence: kept.fence,
        clientId: `client-${tenant.id}`,
        ownerId: "k",
        tenantId: tenant.id,
      });
      await eventually(() =>
        mine.events().find((e) => e.type === "permit-release" && e.lockId === kept.lockId),
      );
      // Nobody renews the 300 ms permit: reported expired (after its lease and a grace).
      const expired = await eventually(() =>
        mine.events().find((e) => e.type === "permit-expired" && e.lockId === lapsing.lockId),
      );
      expect(expired).toMatchObject({
        fence: lapsing.fence,
        ownerId: "lapse",
        tenantId: tenant.id,
        at: lapsing.expiresAt,
      });
      // Audited too: the end of the grant's hold row (decision 0196).
      const row = await eventually(async () => {
        await h.services.audit.flush();
        const hold = await h.prisma.lockHold.findUnique({ where: { lockId: lapsing.lockId } });
        return hold?.endType === "expired" ? hold : undefined;
      });
      expect(row).toMatchObject({ kind: "semaphore", permits: 2 });
      expect(row.fence).toBe(BigInt(lapsing.fence!));
      // Gone from the holder list.
      const listed = await a.holder.list({ resource: semaphore, businessKey: key });
      expect(listed.holders).toEqual([]);
      // The other tenant's feed got none of it.
      expect(stranger.events().filter((e) => e.resource === semaphore)).toEqual([]);
    } finally {
      await mine.stop();
      await stranger.stop();
    }
  });

  it("a renewed permit is not reported expired", async () => {
    const a = tenant.caller();
    const key = `renewed-${uid()}`;
    const grant = await a.semaphore.acquire({
      resource: semaphore,
      businessKey: key,
      ownerId: "r",
      leaseMs: 600,
    });
    if (!grant.granted) throw new Error("expected a grant");
    const mine = await subscribe(tenant, semaphore);
    try {
      // Renewed until well past its first expiry and the report's grace (the sweep runs
      // every second meanwhile), each renewal far inside the 2 s lease it asks for.
      while (Date.now() < grant.expiresAt + 2_500) {
        await a.semaphore.extend({
          resource: semaphore,
          businessKey: key,
          lockId: grant.lockId,
          tier: grant.tier,
          leaseMs: 2_000,
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await a.semaphore.release({
        resource: semaphore,
        businessKey: key,
        lockId: grant.lockId,
        tier: grant.tier,
      });
      await eventually(() =>
        mine.events().find((e) => e.type === "permit-release" && e.lockId === grant.lockId),
      );
      expect(
        mine.events().filter((e) => e.type === "permit-expired" && e.lockId === grant.lockId),
      ).toEqual([]);
    } finally {
      await mine.stop();
    }
  });
});
