import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectCode } from "./support/expect-trpc.js";
import { eventually } from "./support/fleet.js";
import { startHarness, uid, type Harness, type TenantHandle } from "./support/harness.js";

// A resource's `waitReplicas` reaches every kind's grants (decision 0222). The harness's Redis
// is a standalone server with no replica, so a grant that needs one is never acknowledged:
// each acquire is undone and answered REPLICATION_TIMEOUT, and the key stays free.

let h: Harness;
let tenant: TenantHandle;

const POLICY = {
  defaultLeaseMs: 5_000,
  maxLeaseMs: 10_000,
  maxRenewals: null,
  expectedHoldMs: null,
  degrade: true,
  localFallback: "deny",
  fair: false,
  waitReplicas: 1,
  description: "waits for one replica",
} as const;

const NOT_ACKNOWLEDGED = { code: "REPLICATION_TIMEOUT", required: 1, acknowledged: 0 };

/** `warden_replication_timeouts_total` of `resource` on this server. */
async function timeoutsCounted(resource: string): Promise<number> {
  const metric = h.services.metrics.registry.getSingleMetric("warden_replication_timeouts_total");
  const values = (await metric?.get())?.values ?? [];
  return values.find((value) => value.labels["resource"] === resource)?.value ?? 0;
}

/** Waits for `count` audited replication-timeout events of `resource`; returns them. */
async function undoneInAudit(resource: string, count: number) {
  let found: Array<{ businessKey: string | null; reason: string | null }> = [];
  await eventually(async () => {
    const page = await tenant.caller().event.search({ resource, type: "replication-timeout" });
    found = page.events;
    return found.length >= count;
  }, 20_000);
  return found;
}

beforeAll(async () => {
  h = await startHarness();
  tenant = await h.tenant();
});
afterAll(() => h?.close());

describe("waitReplicas on every kind", () => {
  it("a mutex grant no replica acknowledged is undone and reported", async () => {
    const resource = `res:${uid()}`;
    const a = tenant.caller();
    await a.resource.create({ ...POLICY, name: resource });
    const key = { resource, businessKey: "k" };
    const refused = await expectCode(
      a.lock.acquire({ ...key, ownerId: "o" }),
      "SERVICE_UNAVAILABLE",
    );
    expect(refused.cause).toMatchObject(NOT_ACKNOWLEDGED);
    expect(await a.lock.inspect(key)).toMatchObject({ lease: null });
    expect(await timeoutsCounted(resource)).toBe(1);
    expect(await undoneInAudit(resource, 1)).toEqual([
      expect.objectContaining({
        businessKey: "k",
        reason: "acknowledged by 0 of 1 replicas; undone",
      }),
    ]);
  });

  it("a permit no replica acknowledged is undone and reported; with 0 it is granted", async () => {
    const resource = `sem:${uid()}`;
    const a = tenant.caller();
    expect(
      await a.resource.create({ ...POLICY, name: resource, kind: "semaphore", permits: 1 }),
    ).toMatchObject({ kind: "semaphore", waitReplicas: 1 });
    const key = { resource, businessKey: "k" };
    const refused = await expectCode(
      a.semaphore.acquire({ ...key, ownerId: "o" }),
      "SERVICE_UNAVAILABLE",
    );
    expect(refused.cause).toMatchObject(NOT_ACKNOWLEDGED);
    expect(await a.semaphore.inspect(key)).toMatchObject({ inUse: 0, holders: [] });
    // Audited as a mutex grant's undo is.
    expect(await timeoutsCounted(resource)).toBe(1);
    expect(await undoneInAudit(resource, 1)).toEqual([
      expect.objectContaining({
        businessKey: "k",
        reason: "acknowledged by 0 of 1 replicas; undone",
      }),
    ]);

    await a.resource.update({ name: resource, patch: { waitReplicas: 0 } });
    expect(await a.semaphore.acquire({ ...key, ownerId: "o" })).toMatchObject({ granted: true });
  });

  it("a read or write grant no replica acknowledged is undone and reported", async () => {
    const resource = `rw:${uid()}`;
    const a = tenant.caller();
    expect(await a.resource.create({ ...POLICY, name: resource, kind: "rwlock" })).toMatchObject({
      kind: "rwlock",
      waitReplicas: 1,
    });
    const key = { resource, businessKey: "k" };
    const write = await expectCode(
      a.rwlock.acquireWrite({ ...key, ownerId: "w" }),
      "SERVICE_UNAVAILABLE",
    );
    expect(write.cause).toMatchObject(NOT_ACKNOWLEDGED);
    const read = await expectCode(
      a.rwlock.acquireRead({ ...key, ownerId: "r" }),
      "SERVICE_UNAVAILABLE",
    );
    expect(read.cause).toMatchObject(NOT_ACKNOWLEDGED);
    expect(await a.rwlock.inspect(key)).toMatchObject({ writer: null, readers: [] });
    expect(await timeoutsCounted(resource)).toBe(2);
    expect(await undoneInAudit(resource, 2)).toHaveLength(2);

    await a.resource.update({ name: resource, patch: { waitReplicas: 0 } });
    expect(await a.rwlock.acquireWrite({ ...key, ownerId: "w" })).toMatchObject({
      granted: true,
    });
  });

  it("a waitReplicas out of range is refused on every kind, with nothing written", async () => {
    const a = tenant.caller();
    for (const kind of ["mutex", "semaphore", "rwlock"] as const) {
      const name = `${kind}:${uid()}`;
      const refused = await expectCode(
        a.resource.create({
          ...POLICY,
          name,
          kind,
          waitReplicas: 17,
          ...(kind === "semaphore" ? { permits: 2 } : {}),
        }),
        "BAD_REQUEST",
      );
      // The input schema refuses it, naming the field.
      expect(refused.cause).toMatchObject({ issues: [{ path: ["waitReplicas"] }] });
      expect(await h.prisma.resource.findUnique({ where: { name } })).toBeNull();
    }
  });
});
