import { afterAll, beforeAll, expect, it } from "vitest";
import { registerResource, startHarness, uid, type Harness } from "./support/harness.js";
import { expectCode } from "./support/expect-trpc.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

it("another tenant's lockId on your own resource finds nothing, writes nothing, changes nothing of theirs", async () => {
  const a = await h.tenant();
  const b = await h.tenant();
  const resourceA = await registerResource(a);
  const resourceB = await registerResource(b);
  const businessKey = `k-${uid()}`;
  const asA = a.caller();
  const asB = b.caller();
  const grantB = await asB.lock.acquire({ resource: resourceB, businessKey, ownerId: "bob" });
  if (!grantB.granted) throw new Error("expected a grant");
  const viewOfB = async () =>
    (await asB.holder.list({ resource: resourceB })).holders.find(
      (lease) => lease.lockId === grantB.lockId,
    );
  const before = await viewOfB();
  expect(before?.grantedAt).not.toBeNull();
  const liveOfB = () => h.services.tracker.countsByResource().get(resourceB);
  expect(liveOfB()).toBe(1);

  // Tenant A names B's lockId on A's own resource and key: refused like any unknown lockId.
  const foreign = { resource: resourceA, businessKey, lockId: grantB.lockId, tier: grantB.tier };
  await expectCode(asA.lock.release(foreign), "PRECONDITION_FAILED");
  await expectCode(asA.lock.extend({ ...foreign, leaseMs: 5_000 }), "PRECONDITION_FAILED");
  await h.services.audit.flush();

  // No audit row under A, none carrying B's lockId, fence or holder.
  expect(await h.prisma.lockHold.count({ where: { resource: resourceA } })).toBe(0);
  expect(
    await h.prisma.lockEvent.count({
      where: { resource: resourceA, type: { notIn: ["policy"] } },
    }),
  ).toBe(0);
  expect(await h.prisma.lockEvent.count({ where: { lockId: grantB.lockId } })).toBe(0);
  // B's holder view, live count and later audit are untouched.
  const after = await viewOfB();
  expect(after?.grantedAt).toBe(before?.grantedAt);
  expect(after?.renewals).toBe(before?.renewals);
  expect(liveOfB()).toBe(1);
  await asB.lock.release({
    resource: resourceB,
    businessKey,
    lockId: grantB.lockId,
    tier: grantB.tier,
  });
  await h.services.audit.flush();
  const hold = await h.prisma.lockHold.findUniqueOrThrow({ where: { lockId: grantB.lockId } });
  expect(hold).toMatchObject({
    resource: resourceB,
    tenantId: b.id,
    endType: "released",
    clientId: `client-${b.id}`,
    ownerId: "bob",
  });
  expect(hold.fence?.toString()).toBe(grantB.fence);
  const released = await asB.event.search({ resource: resourceB, type: "release" });
  expect(released.events[0]).toMatchObject({ lockId: grantB.lockId, fence: grantB.fence });
  expect(liveOfB() ?? 0).toBe(0);
});

it("the tracker matches a lockId only together with its key", async () => {
  const a = await h.tenant();
  const resource = await registerResource(a);
  const key = { resource, businessKey: `m-${uid()}` };
  const grant = await a.caller().lock.acquire({ ...key, ownerId: "o" });
  if (!grant.granted) throw new Error("expected a grant");
  expect(h.services.tracker.find(key, grant.lockId)?.fence).toBe(grant.fence);
  expect(h.services.tracker.find({ ...key, businessKey: "other" }, grant.lockId)).toBeUndefined();
  expect(h.services.tracker.find({ ...key, resource: "res:else" }, grant.lockId)).toBeUndefined();
});
