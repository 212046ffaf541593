// Issue 14, "any number of instances behave as one": three server instances behind a
// round-robin TCP proxy list the fleet's waiters identically from every instance (fair
// resources in the store's queue order with true positions), and a cancelWait sent to
// any instance ends the wait on the instance that runs it (docs/decisions/0155).
import { TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  eventually,
  fleetClient,
  startFleet,
  type Fleet,
  type FleetClient,
} from "./support/fleet.js";
import { uid } from "./support/harness.js";

let fleet: Fleet;

beforeAll(async () => {
  fleet = await startFleet(3);
});
afterAll(async () => {
  await fleet?.close();
});

async function createResource(client: FleetClient, fair: boolean): Promise<string> {
  const name = `${fair ? "fair" : "plain"}:${uid()}`;
  await client.resource.create.mutate({
    name,
    defaultLeaseMs: 30_000,
    maxLeaseMs: 60_000,
    maxRenewals: null,
    expectedHoldMs: null,
    degrade: true,
    localFallback: "deny",
    fair,
    waitReplicas: 0,
    description: "fleet waiters",
  });
  return name;
}

interface Row {
  readonly businessKey: string;
  readonly clientId: string;
  readonly ownerId: string;
  readonly position: number;
  readonly since: number;
}

/** `holder.waiters` asked of each instance directly (waitedMs left out: it grows). */
async function listedByEach(
  direct: FleetClient[],
  resource: string,
  businessKey?: string,
): Promise<Row[][]> {
  return Promise.all(
    direct.map(async (client) =>
      (
        await client.holder.waiters.query({
          resource,
          ...(businessKey === undefined ? {} : { businessKey }),
        })
      ).waiters.map(({ businessKey: key, clientId, ownerId, position, since }) => ({
        businessKey: key,
        clientId,
        ownerId,
        position,
        since,
      })),
    ),
  );
}

/** Every instance lists exactly `owners` (in this order, positions 0..n-1), the same rows. */
async function allList(direct: FleetClient[], resource: string, key: string, owners: string[]) {
  let last: Row[][] = [];
  const agreed = await eventually(async () => {
    last = await listedByEach(direct, resource, key);
    const [first] = last;
    return (
      first !== undefined &&
      last.every((rows) => JSON.stringify(rows) === JSON.stringify(first)) &&
      JSON.stringify(first.map((row) => [row.ownerId, row.position])) ===
        JSON.stringify(owners.map((owner, position) => [owner, position]))
    );
  });
  expect(agreed, JSON.stringify(last)).toBe(true);
  return last[0]!;
}

/** The index of the instance whose own wait queues run `ownerId`'s wait, or -1. */
function runsOn(resource: string, key: string, ownerId: string): number {
  return fleet.instances.findIndex((instance) =>
    instance
      .server!.services.waiters.list(resource, key)
      .some((waiter) => waiter.ownerId === ownerId),
  );
}

function localCount(resource: string, key: string): number {
  return fleet.instances.reduce(
    (sum, instance) => sum + instance.server!.services.waiters.list(resource, key).length,
    0,
  );
}

function wardenCode(error: unknown): unknown {
  return error instanceof TRPCClientError
    ? (error.data as { wardenCode?: unknown } | undefined)?.wardenCode
    : String(error);
}

/** A REST call to one instance, on a connection of its own. */
async function rest(
  baseUrl: string,
  apiKey: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, "x-warden-client-id": "rest-waiter" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

it("lists a fair key's waiters on different instances identically from each instance in arrival order, and a cancel through another instance ends the wait where it runs", async () => {
  const tenant = await fleet.tenant();
  const other = await fleet.tenant();
  const direct = fleet.instances.map((instance) => fleetClient(instance.url, tenant.key, "ops"));
  const resource = await createResource(direct[0]!, true);
  const key = { resource, businessKey: `queue-${uid()}` };
  const holder = await direct[0]!.lock.acquire.mutate({ ...key, ownerId: "holder" });
  if (!holder.granted) throw new Error("expected a grant");

  const owners = ["w0", "w1", "w2", "w3", "w4", "w5"];
  const order: string[] = [];
  const ended = new Map<string, unknown>();
  const waits: Promise<void>[] = [];
  for (const [index, ownerId] of owners.entries()) {
    // Through the proxy: every call a new connection, so arrivals rotate over instances.
    const client = fleetClient(fleet.proxy.url, tenant.key, ownerId);
    waits.push(
      client.lock.acquire
        .mutate({ ...key, ownerId, waitMs: 60_000, waitId: `wait-of-${ownerId}` })
        .then(
          async (grant) => {
            if (!grant.granted) throw new Error(`${ownerId} was refused`);
            order.push(ownerId);
            await client.lock.release.mutate({ ...key, lockId: grant.lockId, tier: grant.tier });
          },
          (error: unknown) => void ended.set(ownerId, wardenCode(error)),
        ),
    );
    // The next one arrives once this one waits (its first try was refused by the store).
    expect(
      await eventually(() => Promise.resolve(localCount(resource, key.businessKey) === index + 1)),
    ).toBe(true);
  }
  // They wait on all three instances.
  const where = owners.map((ownerId) => runsOn(resource, key.businessKey, ownerId));
  expect(new Set(where).size).toBe(3);

  // Every instance lists all six, in arrival order, with the same rows.
  const rows = await allList(direct, resource, key.businessKey, owners);
  expect(rows.map((row) => row.clientId)).toEqual(owners);
  for (const row of rows) expect(row.since).toBeGreaterThan(0);
  // The order is the store's queue: six live places.
  const locks = fleet.instances[0]!.server!.services.locks;
  expect(await locks.readQueue(key)).toHaveLength(6);
  // The REST listing of any instance is the same list.
  for (const instance of fleet.instances) {
    const reply = await rest(
      instance.url,
      tenant.key,
      "GET",
      `/v1/locks/${encodeURIComponent(resource)}/waiters?businessKey=${encodeURIComponent(key.businessKey)}`,
    );
    expect(reply.status).toBe(200);
    expect(
      (reply.body["waiters"] as Row[]).map(
        ({ businessKey, clientId, ownerId, position, since }) => ({
          businessKey,
          clientId,
          ownerId,
          position,
          since,
        }),
      ),
    ).toEqual(rows);
  }

  // w1 is cancelled through an instance that does not run it (tRPC over plain HTTP).
  const a = where[1]!;
  const b = (a + 1) % 3;
  expect((await direct[b]!.lock.cancelWait.mutate({ waitId: "wait-of-w1" })).cancelled).toBe(true);
  // Its call ends with WAIT_CANCELLED long before its 60 s wait, and its place is gone.
  expect(await eventually(() => Promise.resolve(ended.has("w1")), 5_000)).toBe(true);
  expect(ended.get("w1")).toBe("WAIT_CANCELLED");
  expect(await eventually(async () => (await locks.readQueue(key)).length === 5, 2_000)).toBe(true);
  await allList(direct, resource, key.businessKey, ["w0", "w2", "w3", "w4", "w5"]);

  // An unknown waitId, and another tenant's waitId (through a foreign instance and through
  // the one running the wait), cancel nothing and answer alike.
  const stranger = fleet.instances.map((instance) => fleetClient(instance.url, other.key, "x"));
  const w2 = where[2]!;
  for (const [client, waitId] of [
    [direct[b]!, `wait-nobody-${uid()}`],
    [stranger[(w2 + 1) % 3]!, "wait-of-w2"],
    [stranger[w2]!, "wait-of-w2"],
  ] as const) {
    expect(await client.lock.cancelWait.mutate({ waitId })).toEqual(
      await direct[b]!.lock.cancelWait.mutate({ waitId: `wait-nobody-${uid()}` }),
    );
  }
  // Another tenant cannot list the key either: its resource is unknown to them.
  await expect(stranger[0]!.holder.waiters.query(key)).rejects.toSatisfy(
    (error) => wardenCode(error) === "UNKNOWN_RESOURCE",
  );
  expect(ended.has("w2")).toBe(false);
  await allList(direct, resource, key.businessKey, ["w0", "w2", "w3", "w4", "w5"]);

  // The rest are served in arrival order.
  await direct[2]!.lock.release.mutate({ ...key, lockId: holder.lockId, tier: holder.tier });
  await Promise.all(waits);
  expect(order).toEqual(["w0", "w2", "w3", "w4", "w5"]);
  expect([...ended.keys()]).toEqual(["w1"]);
  await allList(direct, resource, key.businessKey, []);
});

it("lists a non-fair resource's waiters across instances by when they began, and a REST DELETE on one instance ends a REST wait on another with 409 WAIT_CANCELLED", async () => {
  const tenant = await fleet.tenant();
  const other = await fleet.tenant();
  const direct = fleet.instances.map((instance) => fleetClient(instance.url, tenant.key, "ops"));
  const resource = await createResource(direct[0]!, false);
  const businessKey = `plain-${uid()}`;
  const key = { resource, businessKey };
  const holder = await direct[0]!.lock.acquire.mutate({ ...key, ownerId: "holder" });
  if (!holder.granted) throw new Error("expected a grant");

  // p0 on the first instance, p1 on the second (tRPC), p2 on the third (REST).
  const settled: Promise<unknown>[] = [];
  for (const index of [0, 1]) {
    const ownerId = `p${index}`;
    const client = fleetClient(fleet.instances[index]!.url, tenant.key, ownerId);
    settled.push(
      client.lock.acquire
        .mutate({ ...key, ownerId, waitMs: 60_000, waitId: `wait-of-${ownerId}` })
        .then(async (grant) => {
          if (grant.granted)
            await client.lock.release.mutate({ ...key, lockId: grant.lockId, tier: grant.tier });
          return grant.granted;
        }),
    );
    expect(
      await eventually(() => Promise.resolve(localCount(resource, businessKey) === index + 1)),
    ).toBe(true);
  }
  const waitId = `rest-${uid()}`;
  const restWait = rest(
    fleet.instances[2]!.url,
    tenant.key,
    "POST",
    `/v1/locks/${encodeURIComponent(resource)}/acquire`,
    { businessKey, ownerId: "p2", waitMs: 60_000, waitId },
  );
  expect(await eventually(() => Promise.resolve(runsOn(resource, businessKey, "p2") === 2))).toBe(
    true,
  );

  // Every instance lists the three, by when they began, positions 0..2 (a resource-wide
  // listing, no businessKey).
  const rows = await allList(direct, resource, businessKey, ["p0", "p1", "p2"]);
  expect(rows.map((row) => row.clientId)).toEqual(["p0", "p1", "rest-waiter"]);
  const wide = await listedByEach(direct, resource);
  for (const list of wide) expect(list).toEqual(rows);

  // Another tenant's DELETE of that waitId, on the instance running it and on another,
  // answers exactly like an unknown waitId and ends nothing.
  const unknown = await rest(
    fleet.instances[0]!.url,
    tenant.key,
    "DELETE",
    `/v1/waits/nobody-${uid()}`,
  );
  expect(unknown).toMatchObject({ status: 200, body: { cancelled: false } });
  for (const instance of [fleet.instances[0]!, fleet.instances[2]!]) {
    expect(await rest(instance.url, other.key, "DELETE", `/v1/waits/${waitId}`)).toEqual(unknown);
  }
  await allList(direct, resource, businessKey, ["p0", "p1", "p2"]);

  // The owner's DELETE through the first instance ends the wait on the third.
  expect(
    await rest(fleet.instances[0]!.url, tenant.key, "DELETE", `/v1/waits/${waitId}`),
  ).toMatchObject({ status: 200, body: { cancelled: true } });
  const ended = await restWait;
  expect(ended.status).toBe(409);
  expect(ended.body["error"]).toMatchObject({ code: "WAIT_CANCELLED", details: { waitId } });
  await allList(direct, resource, businessKey, ["p0", "p1"]);
  // Once ended, the waitId is unknown everywhere.
  expect(await rest(fleet.instances[1]!.url, tenant.key, "DELETE", `/v1/waits/${waitId}`)).toEqual(
    unknown,
  );

  await direct[1]!.lock.release.mutate({ ...key, lockId: holder.lockId, tier: holder.tier });
  expect(await Promise.all(settled)).toEqual([true, true]);
  await allList(direct, resource, businessKey, []);
});

it("a cancelWait sent to another instance right after the wait began, before the fleet bus announced it, still ends the wait; an unknown waitId still answers false", async () => {
  const tenant = await fleet.tenant();
  const direct = fleet.instances.map((instance) => fleetClient(instance.url, tenant.key, "ops"));
  const resource = await createResource(direct[0]!, false);
  const key = { resource, businessKey: `early-${uid()}` };
  const holder = await direct[0]!.lock.acquire.mutate({ ...key, ownerId: "holder" });
  if (!holder.granted) throw new Error("expected a grant");
  for (const round of [0, 1, 2]) {
    const ownerId = `early-${round}`;
    const waitId = `wait-early-${uid()}`;
    const waiting = fleetClient(fleet.instances[0]!.url, tenant.key, ownerId);
    const outcome = waiting.lock.acquire.mutate({ ...key, ownerId, waitMs: 60_000, waitId }).then(
      (grant) => (grant.granted ? "granted" : "refused"),
      (error: unknown) => wardenCode(error),
    );
    // The wait runs on the first instance (its first try was refused); at once, with no
    // wait for the other instances to hear of it, the second instance is asked to cancel.
    expect(
      await eventually(() => Promise.resolve(runsOn(resource, key.businessKey, ownerId) === 0)),
    ).toBe(true);
    expect((await direct[1 + (round % 2)]!.lock.cancelWait.mutate({ waitId })).cancelled).toBe(
      true,
    );
    expect(await outcome).toBe("WAIT_CANCELLED");
  }
  expect(
    (await direct[1]!.lock.cancelWait.mutate({ waitId: `wait-nobody-${uid()}` })).cancelled,
  ).toBe(false);
  await direct[0]!.lock.release.mutate({ ...key, lockId: holder.lockId, tier: holder.tier });
});

it("on the MySQL tier too: the fleet's fair waiters are listed identically in the queue's order, and a cancel through another instance leaves the queue", async () => {
  const services = fleet.instances.map((instance) => instance.server!.services);
  await services[0]!.locks.override("mysql", "fleet-waiters-test", "waiters on MySQL");
  try {
    expect(
      await eventually(() => Promise.resolve(services.every((s) => s.locks.tier === "mysql"))),
    ).toBe(true);
    const tenant = await fleet.tenant();
    const direct = fleet.instances.map((instance) => fleetClient(instance.url, tenant.key, "ops"));
    const resource = await createResource(direct[0]!, true);
    const key = { resource, businessKey: `mysql-${uid()}` };
    const holder = await direct[0]!.lock.acquire.mutate({ ...key, ownerId: "holder" });
    if (!holder.granted) throw new Error("expected a grant");
    expect(holder.tier).toBe("mysql");
    const outcomes = new Map<string, unknown>();
    const waits: Promise<void>[] = [];
    for (const [index, ownerId] of ["m0", "m1", "m2"].entries()) {
      // m0 on the third instance, m1 on the second, m2 on the first.
      const client = fleetClient(fleet.instances[2 - index]!.url, tenant.key, ownerId);
      waits.push(
        client.lock.acquire
          .mutate({ ...key, ownerId, waitMs: 60_000, waitId: `wait-of-${ownerId}` })
          .then(
            async (grant) => {
              outcomes.set(ownerId, grant.granted);
              if (grant.granted)
                await client.lock.release.mutate({
                  ...key,
                  lockId: grant.lockId,
                  tier: grant.tier,
                });
            },
            (error: unknown) => void outcomes.set(ownerId, wardenCode(error)),
          ),
      );
      expect(
        await eventually(() =>
          Promise.resolve(localCount(resource, key.businessKey) === index + 1),
        ),
      ).toBe(true);
    }
    await allList(direct, resource, key.businessKey, ["m0", "m1", "m2"]);
    expect((await services[0]!.locks.readQueue(key)).length).toBe(3);
    // m1 waits on the second instance; cancelled through the third.
    expect((await direct[2]!.lock.cancelWait.mutate({ waitId: "wait-of-m1" })).cancelled).toBe(
      true,
    );
    expect(await eventually(() => Promise.resolve(outcomes.has("m1")), 5_000)).toBe(true);
    expect(outcomes.get("m1")).toBe("WAIT_CANCELLED");
    expect(
      await eventually(async () => (await services[0]!.locks.readQueue(key)).length === 2, 2_000),
    ).toBe(true);
    await allList(direct, resource, key.businessKey, ["m0", "m2"]);
    await direct[1]!.lock.release.mutate({ ...key, lockId: holder.lockId, tier: holder.tier });
    await Promise.all(waits);
    expect(Object.fromEntries(outcomes)).toEqual({ m0: true, m1: "WAIT_CANCELLED", m2: true });
  } finally {
    await services[0]!.locks.override(null, "fleet-waiters-test", "done");
    // The next test compares whole replies, currentTier included: it starts once every
    // instance is back on Redis (an unknown waitId's cancel now takes ~750 ms, long enough
    // for the switch back to land between two replies).
    expect(
      await eventually(
        () => Promise.resolve(services.every((s) => s.locks.tier === "redis")),
        15_000,
      ),
    ).toBe(true);
  }
});

it("a semaphore or read-write wait sent with a waitId is withdrawn by cancelWait through any instance; another tenant's cancel and a try with a waitId change nothing", async () => {
  const tenant = await fleet.tenant();
  const other = await fleet.tenant();
  const direct = fleet.instances.map((instance) => fleetClient(instance.url, tenant.key, "ops"));
  const stranger = fleet.instances.map((instance) => fleetClient(instance.url, other.key, "x"));
  const policy = {
    defaultLeaseMs: 30_000,
    maxLeaseMs: 60_000,
    maxRenewals: null,
    expectedHoldMs: null,
    degrade: true,
    localFallback: "deny",
    fair: false,
    waitReplicas: 0,
    description: "coordination waits",
  } as const;
  const semaphore = `sem:${uid()}`;
  await direct[0]!.resource.create.mutate({
    ...policy,
    name: semaphore,
    kind: "semaphore",
    permits: 1,
  });
  const rwlock = `rw:${uid()}`;
  await direct[0]!.resource.create.mutate({ ...policy, name: rwlock, kind: "rwlock" });
  const businessKey = `k-${uid()}`;
  const held = await direct[0]!.semaphore.acquire.mutate({
    resource: semaphore,
    businessKey,
    ownerId: "holder",
  });
  const writer = await direct[0]!.rwlock.acquireWrite.mutate({
    resource: rwlock,
    businessKey,
    ownerId: "holder",
  });
  if (!held.granted || !writer.granted) throw new Error("expected grants");

  // Both waits run on the first instance.
  const waiter = fleetClient(fleet.instances[0]!.url, tenant.key, "waiter");
  const semWaitId = `sem-wait-${uid()}`;
  const rwWaitId = `rw-wait-${uid()}`;
  const semWait = waiter.semaphore.acquire
    .mutate({ resource: semaphore, businessKey, ownerId: "w", waitMs: 60_000, waitId: semWaitId })
    .then(
      () => "granted",
      (error: unknown) => [wardenCode(error), (error as TRPCClientError<never>).data],
    );
  const rwWait = waiter.rwlock.acquireRead
    .mutate({ resource: rwlock, businessKey, ownerId: "r", waitMs: 60_000, waitId: rwWaitId })
    .then(
      () => "granted",
      (error: unknown) => wardenCode(error),
    );
  expect(
    await eventually(() =>
      Promise.resolve(
        runsOn(semaphore, businessKey, "w") === 0 && runsOn(rwlock, businessKey, "r") === 0,
      ),
    ),
  ).toBe(true);
  // The other instances learn of a wait at the fleet bus's next flush (~100 ms); once they
  // know it, the cancels below take the known-wait path (decision 0155).
  expect(
    await eventually(() =>
      Promise.resolve(
        fleet.instances
          .slice(1)
          .every((instance) =>
            [semWaitId, rwWaitId].every(
              (waitId) =>
                instance.server!.services.waiters.findRemote(waitId, tenant.id) !== undefined,
            ),
          ),
      ),
    ),
  ).toBe(true);

  // Another tenant's cancel of those waitIds, on the instance running them and on another,
  // answers like an unknown waitId and ends nothing.
  const unknown = await direct[1]!.lock.cancelWait.mutate({ waitId: `nobody-${uid()}` });
  expect(unknown.cancelled).toBe(false);
  for (const client of [stranger[0]!, stranger[1]!]) {
    expect(await client.lock.cancelWait.mutate({ waitId: semWaitId })).toEqual(unknown);
    expect(await client.lock.cancelWait.mutate({ waitId: rwWaitId })).toEqual(unknown);
  }
  expect(runsOn(semaphore, businessKey, "w")).toBe(0);
  expect(runsOn(rwlock, businessKey, "r")).toBe(0);

  // The owner's cancel through the second instance (tRPC) ends the semaphore wait on the
  // first, with its waitId in the typed details; a REST DELETE through the third ends the
  // read wait.
  expect((await direct[1]!.lock.cancelWait.mutate({ waitId: semWaitId })).cancelled).toBe(true);
  const [code, data] = (await semWait) as [unknown, { details?: { waitId?: string } }];
  expect(code).toBe("WAIT_CANCELLED");
  expect(data.details?.waitId).toBe(semWaitId);
  expect(
    await rest(fleet.instances[2]!.url, tenant.key, "DELETE", `/v1/waits/${rwWaitId}`),
  ).toMatchObject({ status: 200, body: { cancelled: true } });
  expect(await rwWait).toBe("WAIT_CANCELLED");
  expect(localCount(semaphore, businessKey) + localCount(rwlock, businessKey)).toBe(0);

  // A try takes no waitId over HTTP (it never waits): 400 on the body, nothing granted.
  const tryWithId = await rest(
    fleet.instances[0]!.url,
    tenant.key,
    "POST",
    `/v1/semaphores/${encodeURIComponent(semaphore)}/try`,
    { businessKey, ownerId: "t", waitId: `try-${uid()}` },
  );
  expect(tryWithId.status).toBe(400);
  // A malformed waitId is refused before anything waits.
  await expect(
    waiter.semaphore.acquire.mutate({
      resource: semaphore,
      businessKey,
      ownerId: "w",
      waitMs: 1_000,
      waitId: "not a valid id!",
    }),
  ).rejects.toSatisfy((error) => wardenCode(error) === "INVALID_ARGUMENT");
  // The holders were never disturbed.
  const inspect = await direct[2]!.semaphore.inspect.query({ resource: semaphore, businessKey });
  expect(inspect.holders.map((p) => p.lockId)).toEqual([held.lockId]);
  await direct[0]!.semaphore.release.mutate({
    resource: semaphore,
    businessKey,
    lockId: held.lockId,
    tier: held.tier,
  });
  await direct[0]!.rwlock.release.mutate({
    resource: rwlock,
    businessKey,
    lockId: writer.lockId,
    tier: writer.tier,
  });
});
