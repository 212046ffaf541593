import { LOCK_DELAY_HOLDER } from "@warden/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { policyFromFlags } from "../src/cli/policy-flags.js";
import { startHarness, uid, type Harness, type TenantHandle } from "./support/harness.js";

let h: Harness;
let tenant: TenantHandle;

beforeAll(async () => {
  h = await startHarness();
  tenant = await h.tenant();
});
afterAll(() => h?.close());

const LOCK_DELAY_MS = 1_500;

async function createResource(lockDelayMs?: number): Promise<string> {
  const name = `res:${uid()}`;
  await tenant.caller().resource.create({
    name,
    defaultLeaseMs: 5_000,
    maxLeaseMs: 30_000,
    maxRenewals: null,
    expectedHoldMs: null,
    degrade: true,
    localFallback: "deny",
    fair: false,
    waitReplicas: 0,
    description: "lock-delay test",
    ...(lockDelayMs === undefined ? {} : { lockDelayMs }),
  });
  return name;
}

describe("resource lock-delay (docs/decisions/0175)", () => {
  it("is a policy field: 0 by default, set at creation and by update, range-checked", async () => {
    const plain = await createResource();
    expect((await tenant.caller().resource.get({ name: plain })).lockDelayMs).toBe(0);
    const delayed = await createResource(LOCK_DELAY_MS);
    expect((await tenant.caller().resource.get({ name: delayed })).lockDelayMs).toBe(LOCK_DELAY_MS);
    await tenant.caller().resource.update({ name: plain, patch: { lockDelayMs: 250 } });
    expect((await tenant.caller().resource.get({ name: plain })).lockDelayMs).toBe(250);
    for (const bad of [-1, 1.5, 60_001]) {
      await expect(
        tenant.caller().resource.update({ name: plain, patch: { lockDelayMs: bad } }),
        String(bad),
      ).rejects.toThrow();
      await expect(createResource(bad), String(bad)).rejects.toThrow();
    }
    expect((await tenant.caller().resource.get({ name: plain })).lockDelayMs).toBe(250);
    expect(policyFromFlags({ "lock-delay-ms": "500" })).toEqual({ lockDelayMs: 500 });
  });

  it("after an operator's force-release the key is refused for the delay (lock-delay holder, delay left), then granted", async () => {
    // The operator first: logging in takes a while, and the lease must still be live.
    const operator = await h.operator("operator");
    const resource = await createResource(LOCK_DELAY_MS);
    const key = { resource, businessKey: `k-${uid()}` };
    const a = tenant.caller({ clientId: "client-a" });
    const b = tenant.caller({ clientId: "client-b" });
    const grant = await a.lock.acquire({ ...key, ownerId: "task" });
    if (!grant.granted) throw new Error("expected a grant");

    const { removed } = await operator
      .caller()
      .holder.forceRelease({ ...key, reason: "stuck worker" });
    expect(removed?.lockId).toBe(grant.lockId);
    expect((await a.lock.inspect(key)).lease).toBeNull();

    const refused = await b.lock.acquire({ ...key, ownerId: "task" });
    if (refused.granted) throw new Error("expected a lock-delay refusal");
    expect(refused.holder).toEqual(LOCK_DELAY_HOLDER);
    expect(refused.ttlMs).toBeGreaterThan(0);
    expect(refused.ttlMs).toBeLessThanOrEqual(LOCK_DELAY_MS);
    const inspected = await b.lock.inspect(key);
    expect(inspected.lease).toBeNull();
    expect(inspected.lockDelayUntil).toBeGreaterThan(Date.now() - 60_000);

    // A wait outlasting the delay is granted once it passes.
    const waited = await b.lock.acquire({ ...key, ownerId: "task", waitMs: 10_000 });
    expect(waited).toMatchObject({ granted: true });
    if (!waited.granted) return;
    await b.lock.release({ ...key, lockId: waited.lockId, tier: waited.tier });
    expect((await b.lock.inspect(key)).lockDelayUntil).toBeNull();
  });

  it("a voluntary release starts no delay", async () => {
    const resource = await createResource(LOCK_DELAY_MS);
    const key = { resource, businessKey: `k-${uid()}` };
    const a = tenant.caller({ clientId: "client-a" });
    const grant = await a.lock.acquire({ ...key, ownerId: "task" });
    if (!grant.granted) throw new Error("expected a grant");
    await a.lock.release({ ...key, lockId: grant.lockId, tier: grant.tier });
    const next = await tenant
      .caller({ clientId: "client-b" })
      .lock.acquire({ ...key, ownerId: "task" });
    expect(next).toMatchObject({ granted: true });
  });
});
