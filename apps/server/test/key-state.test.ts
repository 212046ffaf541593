import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectCode } from "./support/expect-trpc.js";
import { startHarness, uid, type Harness, type TenantHandle } from "./support/harness.js";

let h: Harness;
let tenant: TenantHandle;
let other: TenantHandle;

const POLICY = {
  defaultLeaseMs: 5_000,
  maxLeaseMs: 30_000,
  maxRenewals: null,
  expectedHoldMs: null,
  degrade: true,
  localFallback: "deny",
  fair: false,
  waitReplicas: 0,
  description: "key state test",
} as const;

beforeAll(async () => {
  h = await startHarness();
  tenant = await h.tenant();
  other = await h.tenant();
});
afterAll(() => h?.close());

describe("keyState.keys (the console's per-key reads, docs/decisions/0177)", () => {
  it("a mutex key: its lease for a viewer, then the lock-delay after a force-release", async () => {
    const viewer = await h.operator("viewer");
    const operator = await h.operator("operator");
    const resource = `res:${uid()}`;
    await tenant.caller().resource.create({ ...POLICY, name: resource, lockDelayMs: 20_000 });
    const key = { resource, businessKey: `k-${uid()}` };
    const idle = `idle-${uid()}`;
    const grant = await tenant.caller({ clientId: "c1" }).lock.acquire({ ...key, ownerId: "w" });
    if (!grant.granted) throw new Error("expected a grant");

    const held = await viewer.caller().keyState.keys({
      resource,
      businessKeys: [key.businessKey, idle, key.businessKey],
    });
    expect(held).toMatchObject({ kind: "mutex", lockDelayMs: 20_000, totalPermits: null });
    expect(held.keys.map((k) => k.businessKey)).toEqual([key.businessKey, idle]);
    expect(held.keys[0]).toMatchObject({
      lease: { lockId: grant.lockId, fence: grant.fence, holder: { clientId: "c1" } },
      lockDelay: null,
    });
    expect(held.keys[1]).toEqual({ businessKey: idle, lease: null, lockDelay: null });

    await operator.caller().holder.forceRelease({ ...key, reason: "stuck worker" });
    const delayed = await viewer
      .caller()
      .keyState.keys({ resource, businessKeys: [key.businessKey] });
    const state = delayed.keys[0];
    if (!state || !("lockDelay" in state) || state.lockDelay === null) {
      throw new Error("expected a lock-delay");
    }
    expect(state.lease).toBeNull();
    expect(state.lockDelay.remainingMs).toBeGreaterThan(0);
    expect(state.lockDelay.remainingMs).toBeLessThanOrEqual(20_000);
    // The same figure the tenant's own lock.inspect answers.
    const inspected = await tenant.caller().lock.inspect(key);
    expect(inspected.lockDelayUntil).toBe(state.lockDelay.until);

    // The tenant's own key reads it too.
    const mine = await tenant.caller().keyState.keys({ resource, businessKeys: [key.businessKey] });
    expect(mine.keys[0]).toMatchObject({
      lease: null,
      lockDelay: { until: state.lockDelay.until },
    });
  });

  it("a semaphore key: permits in use of the total, with each permit's holder and fence", async () => {
    const viewer = await h.operator("viewer");
    const resource = `sem:${uid()}`;
    await tenant.caller().resource.create({
      ...POLICY,
      name: resource,
      kind: "semaphore",
      permits: 5,
    });
    const businessKey = `k-${uid()}`;
    const a = tenant.caller({ clientId: "ca" });
    const first = await a.semaphore.acquire({ resource, businessKey, ownerId: "w1", permits: 2 });
    const second = await a.semaphore.acquire({ resource, businessKey, ownerId: "w2" });
    if (!first.granted || !second.granted) throw new Error("expected grants");

    const seen = await viewer
      .caller()
      .keyState.keys({ resource, businessKeys: [businessKey, "free"] });
    expect(seen).toMatchObject({ kind: "semaphore", totalPermits: 5 });
    expect(seen.keys[0]).toMatchObject({ businessKey, inUse: 3 });
    const holders = seen.keys[0] && "holders" in seen.keys[0] ? seen.keys[0].holders : [];
    expect(holders.map((p) => [p.lockId, p.permits, p.fence]).sort()).toEqual(
      [
        [first.lockId, 2, first.fence],
        [second.lockId, 1, second.fence],
      ].sort(),
    );
    expect(seen.keys[1]).toEqual({ businessKey: "free", inUse: 0, holders: [] });

    await a.semaphore.release({ resource, businessKey, lockId: first.lockId, tier: first.tier });
    const after = await viewer.caller().keyState.keys({ resource, businessKeys: [businessKey] });
    expect(after.keys[0]).toMatchObject({ inUse: 1 });
  });

  it("another tenant's resource is exactly an unknown one; bad input is typed", async () => {
    const resource = `res:${uid()}`;
    await tenant.caller().resource.create({ ...POLICY, name: resource });
    const foreign = await expectCode(
      other.caller().keyState.keys({ resource, businessKeys: ["k"] }),
      "NOT_FOUND",
    );
    const unknown = await expectCode(
      other.caller().keyState.keys({ resource: `res:${uid()}`, businessKeys: ["k"] }),
      "NOT_FOUND",
    );
    expect(foreign.cause).toMatchObject({ code: "UNKNOWN_RESOURCE" });
    expect(unknown.cause).toMatchObject({ code: "UNKNOWN_RESOURCE" });
    expect(Object.keys(foreign.cause ?? {}).sort()).toEqual(
      Object.keys(unknown.cause ?? {}).sort(),
    );

    const c = tenant.caller();
    await expectCode(c.keyState.keys({ resource, businessKeys: [] }), "BAD_REQUEST");
    await expectCode(
      c.keyState.keys({ resource, businessKeys: Array.from({ length: 51 }, (_, i) => `k${i}`) }),
      "BAD_REQUEST",
    );
    await expectCode(c.keyState.keys({ resource, businessKeys: [""] }), "BAD_REQUEST");
    await expectCode(
      h.anonymous().keyState.keys({ resource, businessKeys: ["k"] }),
      "UNAUTHORIZED",
    );
  });
});
