import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectCode } from "./support/expect-trpc.js";
import {
  registerResource,
  startHarness,
  uid,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";

let h: Harness;
let tenant: TenantHandle;
let resource: string;

beforeAll(async () => {
  h = await startHarness();
  tenant = await h.tenant();
  resource = await registerResource(tenant, { defaultLeaseMs: 5_000, maxLeaseMs: 10_000 });
});
afterAll(() => h?.close());

describe("lock router", () => {
  it("acquires, refuses a second holder, extends, inspects and releases, carrying the tier", async () => {
    const key = { resource, businessKey: `order-${uid()}` };
    const a = tenant.caller();
    const grant = await a.lock.acquire({ ...key, ownerId: "task-1" });
    if (!grant.granted) throw new Error("expected a grant");
    expect(grant.lockId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(grant.fence).toMatch(/^\d+$/);
    expect(grant.tier).toBe("redis");
    expect(grant.currentTier).toBe("redis");
    expect(grant.ttlMs).toBeGreaterThan(4_000);
    expect(grant.reentry).toBe(1);

    const other = await tenant
      .caller({ clientId: "client-b" })
      .lock.acquire({ ...key, ownerId: "task-1" });
    expect(other).toMatchObject({
      granted: false,
      holder: { clientId: `client-${tenant.id}`, ownerId: "task-1" },
    });

    const again = await a.lock.acquire({ ...key, ownerId: "task-1" });
    expect(again).toMatchObject({ granted: true, lockId: grant.lockId, reentry: 2 });

    const extended = await a.lock.extend({
      ...key,
      lockId: grant.lockId,
      tier: grant.tier,
      leaseMs: 9_000,
    });
    expect(extended.ttlMs).toBeGreaterThan(8_000);
    expect((await a.lock.inspect(key)).lease?.lockId).toBe(grant.lockId);

    expect(await a.lock.release({ ...key, lockId: grant.lockId, tier: grant.tier })).toMatchObject({
      released: false,
      reentry: 1,
    });
    expect(await a.lock.release({ ...key, lockId: grant.lockId, tier: grant.tier })).toMatchObject({
      released: true,
      currentTier: "redis",
    });
    expect((await a.lock.inspect(key)).lease).toBeNull();
  });

  it("grants fences that grow per key", async () => {
    const key = { resource, businessKey: `fence-${uid()}` };
    const fences: bigint[] = [];
    for (let i = 0; i < 3; i += 1) {
      const grant = await tenant.caller().lock.acquire({ ...key, ownerId: `o${i}` });
      if (!grant.granted) throw new Error("expected a grant");
      fences.push(BigInt(grant.fence!));
      await tenant.caller().lock.release({ ...key, lockId: grant.lockId, tier: grant.tier });
    }
    expect(fences[1]! > fences[0]! && fences[2]! > fences[1]!).toBe(true);
  });

  it("refuses bad input with BAD_REQUEST and changes nothing", async () => {
    const key = { resource, businessKey: `bad-${uid()}` };
    const c = tenant.caller();
    await expectCode(c.lock.acquire({ ...key, ownerId: "x".repeat(129) }), "BAD_REQUEST");
    await expectCode(
      c.lock.acquire({ ...key, businessKey: "k".repeat(201), ownerId: "o" }),
      "BAD_REQUEST",
    );
    await expectCode(c.lock.acquire({ ...key, businessKey: "a{b}", ownerId: "o" }), "BAD_REQUEST");
    await expectCode(c.lock.acquire({ ...key, ownerId: "o", leaseMs: -5 }), "BAD_REQUEST");
    await expectCode(c.lock.acquire({ ...key, ownerId: "o", leaseMs: 60_001 }), "BAD_REQUEST");
    // Within the hard cap but over this resource's maxLeaseMs (10 s).
    const overPolicy = await expectCode(
      c.lock.acquire({ ...key, ownerId: "o", leaseMs: 20_000 }),
      "BAD_REQUEST",
    );
    expect(overPolicy.message).toContain("10000");
    await expectCode(c.lock.acquire({ ...key, ownerId: "o", waitMs: 300_001 }), "BAD_REQUEST");
    await expectCode(c.lock.acquire({ ...key, ownerId: "o", waitMs: -1 }), "BAD_REQUEST");
    await expectCode(c.lock.release({ ...key, lockId: "short", tier: "redis" }), "BAD_REQUEST");
    await expectCode(c.lock.reportStaleFence({ ...key, fence: "01" }), "BAD_REQUEST");
    await expectCode(
      c.lock.reportStaleFence({ ...key, fence: "18446744073709551616" }),
      "BAD_REQUEST",
    );
    await expectCode(
      tenant.caller({ clientId: null }).lock.acquire({ ...key, ownerId: "o" }),
      "BAD_REQUEST",
    );
    expect((await c.lock.inspect(key)).lease).toBeNull();
  });

  it("answers NOT_FOUND for unknown and retired resources", async () => {
    const c = tenant.caller();
    await expectCode(
      c.lock.acquire({ resource: `nope:${uid()}`, businessKey: "k", ownerId: "o" }),
      "NOT_FOUND",
    );
    const retired = await registerResource(tenant);
    await c.resource.retire({ name: retired });
    await expectCode(
      c.lock.acquire({ resource: retired, businessKey: "k", ownerId: "o" }),
      "NOT_FOUND",
    );
  });

  it("refuses a wrong lockId with PRECONDITION_FAILED and leaves the lease alone", async () => {
    const key = { resource, businessKey: `wrong-${uid()}` };
    const c = tenant.caller();
    const grant = await c.lock.acquire({ ...key, ownerId: "o" });
    if (!grant.granted) throw new Error("expected a grant");
    const wrong = "A".repeat(22);
    await expectCode(
      c.lock.release({ ...key, lockId: wrong, tier: "redis" }),
      "PRECONDITION_FAILED",
    );
    await expectCode(
      c.lock.extend({ ...key, lockId: wrong, tier: "redis" }),
      "PRECONDITION_FAILED",
    );
    expect((await c.lock.inspect(key)).lease?.lockId).toBe(grant.lockId);
    await c.lock.release({ ...key, lockId: grant.lockId, tier: grant.tier });
  });

  it("stops renewals at the resource's maxRenewals", async () => {
    const limited = await registerResource(tenant, { maxRenewals: 1 });
    const key = { resource: limited, businessKey: `renew-${uid()}` };
    const grant = await tenant.caller().lock.acquire({ ...key, ownerId: "o" });
    if (!grant.granted) throw new Error("expected a grant");
    await tenant.caller().lock.extend({ ...key, lockId: grant.lockId, tier: grant.tier });
    const error = await expectCode(
      tenant.caller().lock.extend({ ...key, lockId: grant.lockId, tier: grant.tier }),
      "PRECONDITION_FAILED",
    );
    expect(error.cause).toMatchObject({ code: "LEASE_LOST" });
    await h.services.audit.flush();
    const refusals = await tenant
      .caller()
      .event.search({ lockId: grant.lockId, type: "renewal-refused" });
    expect(refusals.events.map((e) => e.reason)).toEqual(["renewal-limit"]);
  });

  it("follows the resource's policy when the tier is mysql or local", async () => {
    const operator = await h.operator("operator");
    const denyLocal = await registerResource(tenant);
    const allowLocal = await registerResource(tenant, { localFallback: "allow" });
    const noDegrade = await tenant
      .caller()
      .resource.update({ name: await registerResource(tenant), patch: { degrade: false } });
    try {
      await operator.caller().tier.override({ tier: "mysql", reason: "test: mysql tier" });
      const onMysql = await tenant
        .caller()
        .lock.acquire({ resource: denyLocal, businessKey: "k", ownerId: "o" });
      expect(onMysql).toMatchObject({ granted: true, tier: "mysql", currentTier: "mysql" });
      if (!onMysql.granted) throw new Error("expected a grant");
      expect(onMysql.fence).toMatch(/^\d+$/);
      await tenant.caller().lock.release({
        resource: denyLocal,
        businessKey: "k",
        lockId: onMysql.lockId,
        tier: onMysql.tier,
      });
      const refused = await expectCode(
        tenant.caller().lock.acquire({ resource: noDegrade.name, businessKey: "k", ownerId: "o" }),
        "SERVICE_UNAVAILABLE",
      );
      expect(refused.cause).toMatchObject({ code: "LOCK_UNAVAILABLE", reason: "fail-closed" });

      await operator.caller().tier.override({ tier: "local", reason: "test: local tier" });
      const failClosed = await expectCode(
        tenant.caller().lock.acquire({ resource: denyLocal, businessKey: "k", ownerId: "o" }),
        "SERVICE_UNAVAILABLE",
      );
      expect(failClosed.cause).toMatchObject({ reason: "fail-closed" });
      const local = await tenant
        .caller()
        .lock.acquire({ resource: allowLocal, businessKey: "k", ownerId: "o" });
      expect(local).toMatchObject({
        granted: true,
        tier: "local",
        fence: null,
        currentTier: "local",
      });
    } finally {
      // Released from a forced tier, the controller recovers slowly (hold-down); force
      // Redis first so the next tests start there at once.
      await operator.caller().tier.override({ tier: "redis", reason: "test: back to redis" });
      await operator.caller().tier.override({ tier: null, reason: "test: back to automatic" });
    }
    expect(h.services.locks.tier).toBe("redis");
  });

  it("waits server-side and wakes on release, not on a poll", async () => {
    const key = { resource, businessKey: `wait-${uid()}` };
    const holder = tenant.caller();
    const grant = await holder.lock.acquire({ ...key, ownerId: "holder", leaseMs: 10_000 });
    if (!grant.granted) throw new Error("expected a grant");
    const started = performance.now();
    const waiting = tenant
      .caller({ clientId: "waiter" })
      .lock.acquire({ ...key, ownerId: "w", waitMs: 8_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await holder.lock.release({ ...key, lockId: grant.lockId, tier: grant.tier });
    const next = await waiting;
    expect(next.granted).toBe(true);
    // Woken by the release (300 ms in), long before the 10 s lease would have lapsed.
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it("throws TIMEOUT when the wait runs out", async () => {
    const key = { resource, businessKey: `timeout-${uid()}` };
    await tenant.caller().lock.acquire({ ...key, ownerId: "holder" });
    await expectCode(
      tenant.caller({ clientId: "w" }).lock.acquire({ ...key, ownerId: "w", waitMs: 300 }),
      "TIMEOUT",
    );
    expect(h.services.waiters.list(resource, key.businessKey)).toEqual([]);
  });

  it("serves a fair resource's waiters in arrival order and lets a cancelled waiter leave", async () => {
    const fair = await registerResource(tenant, { fair: true });
    const key = { resource: fair, businessKey: `fifo-${uid()}` };
    const first = await tenant.caller().lock.acquire({ ...key, ownerId: "holder" });
    if (!first.granted) throw new Error("expected a grant");
    const order: string[] = [];
    const queued = async (count: number) => {
      for (
        let i = 0;
        i < 200 && h.services.waiters.list(fair, key.businessKey).length < count;
        i += 1
      ) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    const wait = async (ownerId: string) => {
      const caller = tenant.caller({ clientId: ownerId });
      const grant = await caller.lock.acquire({
        ...key,
        ownerId,
        waitMs: 10_000,
        waitId: `wait-${ownerId}-${uid()}`,
      });
      if (!grant.granted) throw new Error("expected a grant");
      order.push(ownerId);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await caller.lock.release({ ...key, lockId: grant.lockId, tier: grant.tier });
    };
    // Arrival order is the order in which the server queued them: start each once the
    // previous one is queued.
    const waiters: Promise<void>[] = [];
    const cancelId = `cancel-${uid()}`;
    let cancelled: Promise<unknown> = Promise.resolve();
    for (const [index, ownerId] of ["w0", "w1", "w2", "quitter", "w3"].entries()) {
      if (ownerId === "quitter") {
        cancelled = tenant
          .caller({ clientId: "quitter" })
          .lock.acquire({ ...key, ownerId, waitMs: 10_000, waitId: cancelId });
      } else {
        waiters.push(wait(ownerId));
      }
      await queued(index + 1);
    }
    const queue = await tenant.caller().holder.waiters(key);
    expect(queue.fair).toBe(true);
    expect(queue.waiters.map((w) => w.ownerId)).toEqual(["w0", "w1", "w2", "quitter", "w3"]);
    // A newcomer with waitMs 0 does not jump the queue.
    expect(
      (await tenant.caller({ clientId: "rude" }).lock.acquire({ ...key, ownerId: "rude" })).granted,
    ).toBe(false);
    expect(await tenant.caller().lock.cancelWait({ waitId: cancelId })).toMatchObject({
      cancelled: true,
    });
    await expectCode(cancelled, "CLIENT_CLOSED_REQUEST");
    await tenant.caller().lock.release({ ...key, lockId: first.lockId, tier: first.tier });
    await Promise.all(waiters);
    expect(order).toEqual(["w0", "w1", "w2", "w3"]);
  });

  it("removes a waiter whose connection closes", async () => {
    const key = { resource, businessKey: `abort-${uid()}` };
    await tenant.caller().lock.acquire({ ...key, ownerId: "holder" });
    const connection = new AbortController();
    const waiting = tenant
      .caller({ clientId: "gone", signal: connection.signal })
      .lock.acquire({ ...key, ownerId: "w", waitMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.services.waiters.list(resource, key.businessKey)).toHaveLength(1);
    connection.abort();
    await expectCode(waiting, "CLIENT_CLOSED_REQUEST");
    expect(h.services.waiters.list(resource, key.businessKey)).toHaveLength(0);
  });
});
