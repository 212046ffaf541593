import { afterAll, beforeAll, expect, it } from "vitest";
import { createContextInner } from "../src/context.js";
import type { LiveMessage } from "../src/live/live-bus.js";
import { createCaller } from "../src/routers/_app.js";
import { expectCode } from "./support/expect-trpc.js";
import { startHarness, uid, type Harness, type TenantHandle } from "./support/harness.js";

// Permit holder lists and permit events across server instances (docs/decisions/0162): two
// instances on one real Redis and MariaDB, sharing the fleet bus; a third joins later.

/** Polls `find` every 50 ms for up to 15 s; its first defined answer. */
async function eventually<T>(find: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error("nothing within 15 s");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let a: Harness;
let b: Harness;
let tenant: TenantHandle;
let semaphore: string;

const on = (h: Harness, clientId: string) =>
  createCaller(createContextInner(h.services, { apiKey: tenant.key, clientId }));

/** A new semaphore resource of the tenant, 4 permits, with `defaultLeaseMs`; its name. */
async function createSemaphore(defaultLeaseMs: number, description: string): Promise<string> {
  const name = `sem:${uid()}`;
  await tenant.caller().resource.create({
    name,
    kind: "semaphore",
    permits: 4,
    defaultLeaseMs,
    maxLeaseMs: 20_000,
    maxRenewals: null,
    expectedHoldMs: null,
    degrade: true,
    localFallback: "deny",
    fair: false,
    waitReplicas: 0,
    description,
  });
  return name;
}

beforeAll(async () => {
  a = await startHarness({ fleet: true, releaseBridge: true });
  b = await startHarness({ fleet: true, releaseBridge: true, shareWith: a });
  tenant = await a.tenant();
  semaphore = await createSemaphore(5_000, "fleet permits");
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

it("a permit granted on one instance is listed on the other, follows its renewals and leaves with its release", async () => {
  const key = `fleet-${uid()}`;
  const onA = on(a, "sdk-1");
  const onB = on(b, "sdk-1");
  const grant = await onA.semaphore.acquire({
    resource: semaphore,
    businessKey: key,
    ownerId: "w",
    permits: 3,
  });
  if (!grant.granted) throw new Error("expected a grant");
  const listed = await eventually(async () => {
    const page = await onB.holder.list({ resource: semaphore });
    return page.holders.find((p) => p.lockId === grant.lockId);
  });
  expect(listed).toMatchObject({
    kind: "permit",
    businessKey: key,
    permits: 3,
    fence: grant.fence,
  });

  // The client fails over to B and renews there; then releases through A.
  await onB.semaphore.extend({
    resource: semaphore,
    businessKey: key,
    lockId: grant.lockId,
    tier: grant.tier,
  });
  await onA.semaphore.release({
    resource: semaphore,
    businessKey: key,
    lockId: grant.lockId,
    tier: grant.tier,
  });
  await eventually(async () => {
    const page = await onB.holder.list({ resource: semaphore });
    return page.holders.some((p) => p.lockId === grant.lockId) ? undefined : true;
  });
});

it("a permit nobody renews is reported expired once, by the instance that granted it, on every instance's live feed", async () => {
  const seenOnB: LiveMessage[] = [];
  const unsubscribe = b.services.live.subscribe((message) => seenOnB.push(message));
  try {
    const key = `lapse-${uid()}`;
    const grant = await on(a, "sdk-2").semaphore.acquire({
      resource: semaphore,
      businessKey: key,
      ownerId: "gone",
      leaseMs: 300,
    });
    if (!grant.granted) throw new Error("expected a grant");
    const expired = await eventually(
      () =>
        seenOnB.flatMap((m) =>
          m.kind === "event" && m.event.type === "permit-expired" && m.event.lockId === grant.lockId
            ? [m.event]
            : [],
        )[0],
    );
    expect(expired).toMatchObject({ tenantId: tenant.id, fence: grant.fence, ownerId: "gone" });
    // Audited once: the end of the grant's one hold row (decision 0196), no event row.
    const rows = await eventually(async () => {
      const found = await a.prisma.lockHold.findMany({ where: { lockId: grant.lockId } });
      return found.some((row) => row.endType === "expired") ? found : undefined;
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: "semaphore", ownerId: "gone" });
    expect(await a.prisma.lockEvent.count({ where: { lockId: grant.lockId } })).toBe(0);
  } finally {
    unsubscribe();
  }
});

it("an instance that joins later lists the permits the fleet already holds", async () => {
  const key = `late-${uid()}`;
  const grant = await on(a, "sdk-3").semaphore.acquire({
    resource: semaphore,
    businessKey: key,
    ownerId: "early",
    // Nobody renews this permit, and starting an instance on a loaded box has taken longer
    // than the resource's 5 s default lease: the permit must outlive the third instance's start.
    leaseMs: 20_000,
  });
  if (!grant.granted) throw new Error("expected a grant");
  const c = await startHarness({ fleet: true, releaseBridge: true, shareWith: a });
  const release = () =>
    on(a, "sdk-3").semaphore.release({
      resource: semaphore,
      businessKey: key,
      lockId: grant.lockId,
      tier: grant.tier,
    });
  try {
    const listed = await eventually(async () => {
      const page = await on(c, "console").holder.list({ resource: semaphore });
      return page.holders.find((p) => p.lockId === grant.lockId);
    });
    expect(listed).toMatchObject({ kind: "permit", holder: { ownerId: "early" } });
  } catch (error) {
    // Report why the listing failed, not the cleanup's NOT_HOLDER if the permit lapsed
    // meanwhile, nor an error closing the third instance.
    await c.close().catch(() => undefined);
    await release().catch(() => undefined);
    throw error;
  }
  await c.close();
  await release();
});

it("an instance that heard of no grant (a whole fleet restarted) lists the stores' permits and refuses to retire under them", async () => {
  // Its own resource: the retirement must not touch the other tests' semaphore.
  const name = await createSemaphore(20_000, "fleet restart");
  const keys = ["k1", "k2", "k3"];
  const grants = [];
  for (const businessKey of keys) {
    const grant = await on(a, "sdk-4").semaphore.acquire({
      resource: name,
      businessKey,
      ownerId: `o-${businessKey}`,
    });
    if (!grant.granted) throw new Error("expected a grant");
    grants.push({ ...grant, businessKey });
  }
  // Same Redis and database, no fleet bus: no instance tells it of the grants above, as
  // after every instance restarted. Asked at once, before any renewal could reach it.
  const c = await startHarness({ shareWith: a });
  try {
    const console = on(c, "console");
    const listed: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages += 1) {
      const page = await console.holder.list({
        resource: name,
        limit: 2,
        ...(cursor === undefined ? {} : { cursor }),
      });
      listed.push(...page.holders.map((p) => p.lockId));
      if (page.cursor === null) break;
      cursor = page.cursor;
    }
    expect(listed.sort()).toEqual(grants.map((g) => g.lockId).sort());
    await expectCode(console.resource.retire({ name }), "CONFLICT");
    expect((await console.resource.get({ name })).retiredAt).toBeNull();

    for (const grant of grants) {
      await on(a, "sdk-4").semaphore.release({
        resource: name,
        businessKey: grant.businessKey,
        lockId: grant.lockId,
        tier: grant.tier,
      });
    }
    expect((await console.holder.list({ resource: name })).holders).toEqual([]);
    expect((await console.resource.retire({ name })).retiredAt).not.toBeNull();
  } finally {
    await c.close();
  }
});
