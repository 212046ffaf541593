import { NotHolderError, WaitCancelledError } from "@warden/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectCode } from "./support/expect-trpc.js";
import {
  registerResource,
  startHarness,
  uid,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";

// Issue 18 item 1 and the waitId part of item 8: another tenant's lockId or waitId, used
// on your own resource, behaves exactly like an unknown one — same answer, no side effect
// on the other tenant's lease, its tracking or its audit trail.

let h: Harness;
let a: TenantHandle;
let b: TenantHandle;
let resourceA: string;
let resourceB: string;

beforeAll(async () => {
  h = await startHarness();
  a = await h.tenant();
  b = await h.tenant();
  resourceA = await registerResource(a, { maxRenewals: 1 });
  resourceB = await registerResource(b);
});
afterAll(() => h?.close());

async function eventually(predicate: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    if (await predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never happened: ${what}`);
}

/** The audit rows under tenant A that carry anything of B's grant. */
function rowsLeakingB(grant: { lockId: string; fence: string | null }) {
  return h.prisma.lockEvent.findMany({
    where: {
      tenantId: a.id,
      OR: [
        { clientId: `client-${b.id}` },
        { ownerId: "b-owner" },
        ...(grant.fence === null ? [] : [{ fence: BigInt(grant.fence) }]),
      ],
    },
    select: { type: true, lockId: true, clientId: true, fence: true },
  });
}

async function notHolder(promise: Promise<unknown>): Promise<NotHolderError> {
  const error = await expectCode(promise, "PRECONDITION_FAILED");
  expect(error.cause).toBeInstanceOf(NotHolderError);
  return error.cause as NotHolderError;
}

/** A lockId of the right shape that nobody was ever granted. */
function unknownLockId(): string {
  return `unknownLockId${uid()}x`.slice(0, 22).padEnd(22, "x");
}

describe("a foreign lockId on your own resource", () => {
  it("is NOT_HOLDER like an unknown one, audits nothing of B's, and leaves B's lease alone", async () => {
    const keyB = { resource: resourceB, businessKey: `b-${uid()}` };
    const grantB = await b.caller().lock.acquire({ ...keyB, ownerId: "b-owner" });
    if (!grantB.granted) throw new Error("expected B's grant");
    // A holds its own key, so refusals are `other-holder` (no store event of their own).
    const keyA = { resource: resourceA, businessKey: `a-${uid()}` };
    const grantA = await a.caller().lock.acquire({ ...keyA, ownerId: "a-owner" });
    if (!grantA.granted) throw new Error("expected A's grant");
    // B's lease has been renewed once: with A's maxRenewals of 1, a lookup by B's lockId
    // alone would refuse A's extend as over the renewal limit.
    await b.caller().lock.extend({ ...keyB, lockId: grantB.lockId, tier: grantB.tier });

    const asA = a.caller();
    const foreign = { ...keyA, lockId: grantB.lockId, tier: grantB.tier };
    const unknown = { ...keyA, lockId: unknownLockId(), tier: grantB.tier };
    const foreignExtend = await notHolder(asA.lock.extend(foreign));
    const unknownExtend = await notHolder(asA.lock.extend(unknown));
    expect(foreignExtend.details).toEqual({ lockId: grantB.lockId, reason: "other-holder" });
    expect(unknownExtend.details).toEqual({ lockId: unknown.lockId, reason: "other-holder" });
    const foreignRelease = await notHolder(asA.lock.release(foreign));
    const unknownRelease = await notHolder(asA.lock.release(unknown));
    expect(foreignRelease.details.reason).toBe(unknownRelease.details.reason);

    // Both refused extends are audited alike: under A, with no holder (none is known).
    await eventually(
      async () =>
        (await h.prisma.lockEvent.count({
          where: { tenantId: a.id, type: "renewal-refused", resource: resourceA },
        })) >= 2,
      "A's renewal-refused rows",
    );
    const refused = await h.prisma.lockEvent.findMany({
      where: { tenantId: a.id, type: "renewal-refused", resource: resourceA },
      select: { lockId: true, clientId: true, ownerId: true, fence: true, reason: true },
    });
    for (const row of refused) {
      expect(row).toMatchObject({ clientId: null, ownerId: null, fence: null });
      expect(row.reason).toBe("other-holder");
    }
    expect(await rowsLeakingB(grantB)).toEqual([]);

    // B's lease is untouched, and B still releases it.
    const lease = (await b.caller().lock.inspect(keyB)).lease;
    expect(lease).toMatchObject({ lockId: grantB.lockId, fence: grantB.fence });
    expect((await a.caller().lock.inspect(keyA)).lease?.lockId).toBe(grantA.lockId);
    const released = await b
      .caller()
      .lock.release({ ...keyB, lockId: grantB.lockId, tier: grantB.tier });
    expect(released.released).toBe(true);
  });

  it("on a free key of your own is refused as expired, and still carries nothing of B's", async () => {
    const keyB = { resource: resourceB, businessKey: `b-${uid()}` };
    const grantB = await b.caller().lock.acquire({ ...keyB, ownerId: "b-owner" });
    if (!grantB.granted) throw new Error("expected B's grant");
    const keyA = { resource: resourceA, businessKey: `free-${uid()}` };
    const asA = a.caller();
    const foreign = { ...keyA, lockId: grantB.lockId, tier: grantB.tier };
    expect((await notHolder(asA.lock.extend(foreign))).details.reason).toBe("expired");
    expect((await notHolder(asA.lock.release(foreign))).details.reason).toBe("expired");
    expect((await b.caller().lock.inspect(keyB)).lease?.lockId).toBe(grantB.lockId);
    // Give the audit writer a few flushes, then look for anything of B's under A.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await rowsLeakingB(grantB)).toEqual([]);
    await b.caller().lock.release({ ...keyB, lockId: grantB.lockId, tier: grantB.tier });
  });

  it("cannot reach another tenant's resource at all", async () => {
    const keyB = { resource: resourceB, businessKey: `b-${uid()}` };
    const grantB = await b.caller().lock.acquire({ ...keyB, ownerId: "b-owner" });
    if (!grantB.granted) throw new Error("expected B's grant");
    const asA = a.caller();
    const held = { ...keyB, lockId: grantB.lockId, tier: grantB.tier };
    await expectCode(asA.lock.release(held), "NOT_FOUND");
    await expectCode(asA.lock.extend(held), "NOT_FOUND");
    await expectCode(asA.lock.inspect(keyB), "NOT_FOUND");
    expect((await b.caller().lock.inspect(keyB)).lease?.lockId).toBe(grantB.lockId);
    await b.caller().lock.release(held);
  });
});

describe("waitIds", () => {
  it("are per tenant: A can neither cancel nor take over B's waitId", async () => {
    const waitId = `wait-${uid()}-shared`;
    // Each tenant's key is held, so each blocking acquire waits.
    const heldB = { resource: resourceB, businessKey: `wb-${uid()}` };
    const heldA = { resource: resourceA, businessKey: `wa-${uid()}` };
    const holderB = await b.caller().lock.acquire({ ...heldB, ownerId: "holder" });
    const holderA = await a.caller().lock.acquire({ ...heldA, ownerId: "holder" });
    if (!holderB.granted || !holderA.granted) throw new Error("expected both holders");

    const waitB = b
      .caller({ clientId: "client-b-waiter" })
      .lock.acquire({ ...heldB, ownerId: "b-waiter", waitMs: 20_000, waitId })
      .catch((error: unknown) => error);
    await eventually(
      () => Promise.resolve(h.services.waiters.list(resourceB).length === 1),
      "B waiting",
    );
    // A names B's waitId: nothing there for A.
    expect(await a.caller().lock.cancelWait({ waitId })).toMatchObject({ cancelled: false });
    // A starts its own wait under the same waitId: it must not shadow B's.
    const waitA = a
      .caller({ clientId: "client-a-waiter" })
      .lock.acquire({ ...heldA, ownerId: "a-waiter", waitMs: 20_000, waitId })
      .catch((error: unknown) => error);
    await eventually(
      () => Promise.resolve(h.services.waiters.list(resourceA).length === 1),
      "A waiting",
    );
    // B still cancels its own wait, and only its own.
    expect(await b.caller().lock.cancelWait({ waitId })).toMatchObject({ cancelled: true });
    const endedB = (await waitB) as { cause?: unknown };
    expect(endedB.cause).toBeInstanceOf(WaitCancelledError);
    expect(h.services.waiters.list(resourceA)).toHaveLength(1);
    expect(await a.caller().lock.cancelWait({ waitId })).toMatchObject({ cancelled: true });
    const endedA = (await waitA) as { cause?: unknown };
    expect(endedA.cause).toBeInstanceOf(WaitCancelledError);

    await b.caller().lock.release({ ...heldB, lockId: holderB.lockId, tier: holderB.tier });
    await a.caller().lock.release({ ...heldA, lockId: holderA.lockId, tier: holderA.tier });
  });
});
