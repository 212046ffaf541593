import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import type { HttpServerHandle } from "../src/http/server.js";
import {
  errorReplySchema,
  permitGrantedSchema,
  permitRefusedSchema,
  semaphoreExtendReplySchema,
  semaphoreInspectReplySchema,
  semaphoreReleaseReplySchema,
  waitersReplySchema,
} from "../src/rest/schemas.js";
import {
  registerResource,
  startHarness,
  uid,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";
import { serveHarness } from "./support/lock-client.js";

// The HTTP/JSON semaphore routes (docs/decisions/0162) on a real server over real Redis and
// MariaDB: documented replies, waits, typed errors, tenant scoping, maxRenewals.

let h: Harness;
let http: HttpServerHandle;
let tenant: TenantHandle;
let other: TenantHandle;
let semaphore: string;
let limited: string;
let foreign: string;
let mutex: string;

const POLICY = {
  defaultLeaseMs: 5_000,
  maxLeaseMs: 20_000,
  maxRenewals: null,
  expectedHoldMs: null,
  degrade: true,
  localFallback: "deny",
  fair: false,
  waitReplicas: 0,
  description: "semaphore REST test",
} as const;

async function registerSemaphore(
  t: TenantHandle,
  permits: number,
  maxRenewals: number | null = null,
): Promise<string> {
  const name = `sem:${uid()}`;
  await t.caller().resource.create({ ...POLICY, name, kind: "semaphore", permits, maxRenewals });
  return name;
}

beforeAll(async () => {
  h = await startHarness();
  http = await serveHarness(h, { maxBodyBytes: 8 * 1024 });
  tenant = await h.tenant();
  other = await h.tenant();
  semaphore = await registerSemaphore(tenant, 3);
  limited = await registerSemaphore(tenant, 2, 2);
  foreign = await registerSemaphore(other, 3);
  mutex = await registerResource(tenant);
});
afterAll(async () => {
  await http?.close();
  await h?.close();
});

interface Reply {
  readonly status: number;
  readonly body: unknown;
}

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const response = await fetch(`${http.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${tenant.key}`,
      "x-warden-client-id": "rest-sem",
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? null : JSON.parse(text) };
}

function documented<S extends z.ZodObject>(schema: S, reply: Reply, status = 200): z.output<S> {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  return schema.strict().parse(reply.body) as z.output<S>;
}

function typedError(reply: Reply, status: number, code: string) {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  const { error } = errorReplySchema.parse(reply.body) as {
    error: { code: string; message: string; details: Record<string, unknown> };
  };
  expect(error.code).toBe(code);
  return error;
}

/** The first non-null answer of `find`, polled for up to 15 s. */
async function eventually<T>(find: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = await find();
    if (found !== null) return found;
    if (Date.now() > deadline) throw new Error("not found within 15 s");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const semPath = (name: string, action = "") =>
  `/v1/semaphores/${encodeURIComponent(name)}${action}`;
const keyQuery = (key: string) => `?businessKey=${encodeURIComponent(key)}`;

async function inUse(resource: string, key: string, apiKey = tenant.key): Promise<number> {
  const seen = documented(
    semaphoreInspectReplySchema,
    await call("GET", semPath(resource) + keyQuery(key), undefined, {
      authorization: `Bearer ${apiKey}`,
    }),
  );
  return seen.inUse;
}

describe("semaphore routes answer the documented shapes", () => {
  it("acquire, try, extend, inspect, release: permits up to the total, a refusal, fences growing", async () => {
    const key = `shape/${uid()} naïve`;
    const first = documented(
      permitGrantedSchema,
      await call("POST", semPath(semaphore, "/acquire"), {
        businessKey: key,
        ownerId: "w1",
        permits: 2,
      }),
    );
    expect(first).toMatchObject({ permits: 2, inUse: 2, totalPermits: 3, maxRenewals: null });
    expect(first.holder).toEqual({ clientId: "rest-sem", ownerId: "w1" });
    const second = documented(
      permitGrantedSchema,
      await call("POST", semPath(semaphore, "/try"), { businessKey: key, ownerId: "w2" }),
    );
    expect(BigInt(second.fence!)).toBeGreaterThan(BigInt(first.fence!));
    const refused = documented(
      permitRefusedSchema,
      await call("POST", semPath(semaphore, "/try"), { businessKey: key, ownerId: "w3" }),
    );
    expect(refused).toMatchObject({ granted: false, inUse: 3, totalPermits: 3, queued: false });

    const renewed = documented(
      semaphoreExtendReplySchema,
      await call("POST", semPath(semaphore, "/extend"), {
        businessKey: key,
        lockId: first.lockId,
        tier: first.tier,
        leaseMs: 15_000,
      }),
    );
    expect(renewed.permit).toMatchObject({ lockId: first.lockId, renewals: 1 });
    expect(renewed.permit.ttlMs).toBeGreaterThan(10_000);

    const seen = documented(
      semaphoreInspectReplySchema,
      await call("GET", semPath(semaphore) + keyQuery(key)),
    );
    expect(seen).toMatchObject({ inUse: 3, totalPermits: 3 });
    expect(seen.holders.map((p) => p.lockId).sort()).toEqual([first.lockId, second.lockId].sort());

    const released = documented(
      semaphoreReleaseReplySchema,
      await call("POST", semPath(semaphore, "/release"), {
        businessKey: key,
        lockId: first.lockId,
        tier: first.tier,
      }),
    );
    expect(released.permit.lockId).toBe(first.lockId);
    expect(await inUse(semaphore, key)).toBe(1);
    // A second release of the same grant is NOT_HOLDER.
    typedError(
      await call("POST", semPath(semaphore, "/release"), {
        businessKey: key,
        lockId: first.lockId,
        tier: first.tier,
      }),
      409,
      "NOT_HOLDER",
    );
  });

  it("a waiting acquire is woken by a release; one that runs out is 423 LOCK_TIMEOUT", async () => {
    const key = `wait-${uid()}`;
    const all = documented(
      permitGrantedSchema,
      await call("POST", semPath(semaphore, "/acquire"), {
        businessKey: key,
        ownerId: "all",
        permits: 3,
      }),
    );
    const timedOut = typedError(
      await call("POST", semPath(semaphore, "/acquire"), {
        businessKey: key,
        ownerId: "t",
        waitMs: 200,
      }),
      423,
      "LOCK_TIMEOUT",
    );
    expect(timedOut.details).toEqual({ waitMs: 200 });

    const waiting = call(
      "POST",
      semPath(semaphore, "/acquire"),
      { businessKey: key, ownerId: "w", waitMs: 30_000 },
      { "x-warden-client-id": "rest-waiter" },
    );
    // Listed with the resource's waiters once it waits (holder.waiters, fleet-wide).
    const caller = tenant.caller();
    for (let i = 0; i < 300; i += 1) {
      const { waiters } = await caller.holder.waiters({ resource: semaphore, businessKey: key });
      if (waiters.length === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const listed = await caller.holder.waiters({ resource: semaphore, businessKey: key });
    expect(listed.kind).toBe("permit");
    expect(listed.waiters).toMatchObject([{ clientId: "rest-waiter", ownerId: "w", position: 0 }]);
    const overRest = documented(
      waitersReplySchema,
      await call("GET", semPath(semaphore, "/waiters") + keyQuery(key)),
    );
    expect(overRest.waiters).toMatchObject([{ clientId: "rest-waiter", position: 0 }]);

    documented(
      semaphoreReleaseReplySchema,
      await call("POST", semPath(semaphore, "/release"), {
        businessKey: key,
        lockId: all.lockId,
        tier: all.tier,
      }),
    );
    const woken = documented(permitGrantedSchema, await waiting);
    expect(woken.holder.clientId).toBe("rest-waiter");
    expect(BigInt(woken.fence!)).toBeGreaterThan(BigInt(all.fence!));
    expect(
      (await caller.holder.waiters({ resource: semaphore, businessKey: key })).waiters,
    ).toEqual([]);
  });
});

describe("semaphore routes: typed errors change nothing", () => {
  it("400 INVALID_ARGUMENT names the field; nothing is held afterwards", async () => {
    const key = `bad-${uid()}`;
    const cases: [string, unknown, string][] = [
      ["/acquire", { businessKey: key, ownerId: "o", permits: 0 }, "permits"],
      ["/acquire", { businessKey: key, ownerId: "o", permits: 4 }, "permits"],
      ["/acquire", { businessKey: key, ownerId: "o", permits: 1.5 }, "permits"],
      ["/acquire", { businessKey: key, ownerId: "o", lease_ms: 1_000 }, "lease_ms"],
      ["/acquire", { businessKey: key, ownerId: "o", leaseMs: 60_000 }, "leaseMs"],
      ["/try", { businessKey: key, ownerId: "o", waitMs: 1_000 }, "waitMs"],
      ["/acquire", { businessKey: "", ownerId: "o" }, "businessKey"],
      ["/release", { businessKey: key, lockId: "short", tier: "redis" }, "lockId"],
      ["/extend", { businessKey: key, lockId: "A".repeat(22), tier: "disk" }, "tier"],
    ];
    for (const [action, body, field] of cases) {
      const error = typedError(
        await call("POST", semPath(semaphore, action), body),
        400,
        "INVALID_ARGUMENT",
      );
      expect(error.details["field"], JSON.stringify(body)).toBe(field);
    }
    typedError(await call("GET", semPath(semaphore)), 400, "INVALID_ARGUMENT");
    expect(await inUse(semaphore, key)).toBe(0);
  });

  it("a mutex is INVALID_ARGUMENT on kind on the semaphore routes, and a semaphore on the lock routes", async () => {
    const key = `kind-${uid()}`;
    const onMutex = typedError(
      await call("POST", semPath(mutex, "/acquire"), { businessKey: key, ownerId: "o" }),
      400,
      "INVALID_ARGUMENT",
    );
    expect(onMutex.details["field"]).toBe("kind");
    const waitersOnMutex = typedError(
      await call("GET", semPath(mutex, "/waiters")),
      400,
      "INVALID_ARGUMENT",
    );
    expect(waitersOnMutex.details["field"]).toBe("kind");
    const onSemaphore = typedError(
      await call("POST", `/v1/locks/${encodeURIComponent(semaphore)}/acquire`, {
        businessKey: key,
        ownerId: "o",
      }),
      400,
      "INVALID_ARGUMENT",
    );
    expect(onSemaphore.details["field"]).toBe("kind");
    expect(await inUse(semaphore, key)).toBe(0);
    const mutexFree = await tenant.caller().lock.inspect({ resource: mutex, businessKey: key });
    expect(mutexFree.lease).toBeNull();
  });

  it("401 without a key; 404 for another tenant's semaphore exactly like an unknown one", async () => {
    typedError(
      await call(
        "POST",
        semPath(semaphore, "/try"),
        { businessKey: "k", ownerId: "o" },
        {
          authorization: "",
        },
      ),
      401,
      "UNAUTHORIZED",
    );
    const theirs = documented(
      permitGrantedSchema,
      await call(
        "POST",
        semPath(foreign, "/acquire"),
        { businessKey: "k", ownerId: "o" },
        { authorization: `Bearer ${other.key}` },
      ),
    );
    const unknown = `sem:${uid()}`;
    for (const [method, action, body] of [
      ["POST", "/acquire", { businessKey: "k", ownerId: "o" }],
      ["POST", "/try", { businessKey: "k", ownerId: "o" }],
      ["POST", "/release", { businessKey: "k", lockId: theirs.lockId, tier: theirs.tier }],
      ["POST", "/extend", { businessKey: "k", lockId: theirs.lockId, tier: theirs.tier }],
      ["GET", "", undefined],
    ] as const) {
      const query = method === "GET" ? keyQuery("k") : "";
      const mine = typedError(
        await call(method, semPath(unknown, action) + query, body),
        404,
        "UNKNOWN_RESOURCE",
      );
      const foreignError = typedError(
        await call(method, semPath(foreign, action) + query, body),
        404,
        "UNKNOWN_RESOURCE",
      );
      expect(foreignError).toEqual({
        ...mine,
        message: mine.message.replace(unknown, foreign),
        details: { resource: foreign },
      });
    }
    // Their permit is untouched: still held, not renewed.
    const still = documented(
      semaphoreInspectReplySchema,
      await call("GET", semPath(foreign) + keyQuery("k"), undefined, {
        authorization: `Bearer ${other.key}`,
      }),
    );
    expect(still.holders).toMatchObject([{ lockId: theirs.lockId, renewals: 0 }]);
  });

  it("409 NOT_HOLDER: another tenant's lockId on my key answers like an unknown lockId", async () => {
    const key = `shared-${uid()}`;
    const theirs = documented(
      permitGrantedSchema,
      await call(
        "POST",
        semPath(foreign, "/acquire"),
        { businessKey: key, ownerId: "o" },
        { authorization: `Bearer ${other.key}` },
      ),
    );
    documented(
      permitGrantedSchema,
      await call("POST", semPath(semaphore, "/acquire"), { businessKey: key, ownerId: "o" }),
    );
    const unknownId = "B".repeat(22);
    for (const action of ["/release", "/extend"]) {
      const withTheirs = typedError(
        await call("POST", semPath(semaphore, action), {
          businessKey: key,
          lockId: theirs.lockId,
          tier: theirs.tier,
        }),
        409,
        "NOT_HOLDER",
      );
      const withUnknown = typedError(
        await call("POST", semPath(semaphore, action), {
          businessKey: key,
          lockId: unknownId,
          tier: theirs.tier,
        }),
        409,
        "NOT_HOLDER",
      );
      expect(withTheirs).toEqual({
        ...withUnknown,
        message: withUnknown.message.replace(unknownId, theirs.lockId),
        details: { ...withUnknown.details, lockId: theirs.lockId },
      });
    }
    expect(await inUse(semaphore, key)).toBe(1);
    expect(await inUse(foreign, key, other.key)).toBe(1);
  });
});

describe("maxRenewals for permits", () => {
  it("past the resource's maxRenewals an extend is 409 LEASE_LOST, audited as renewal-refused, and the lease is not renewed", async () => {
    const key = `renew-${uid()}`;
    const grant = documented(
      permitGrantedSchema,
      await call("POST", semPath(limited, "/acquire"), {
        businessKey: key,
        ownerId: "o",
        leaseMs: 10_000,
      }),
    );
    expect(grant.maxRenewals).toBe(2);
    const extend = (leaseMs: number) =>
      call("POST", semPath(limited, "/extend"), {
        businessKey: key,
        lockId: grant.lockId,
        tier: grant.tier,
        leaseMs,
      });
    documented(semaphoreExtendReplySchema, await extend(10_000));
    const second = documented(semaphoreExtendReplySchema, await extend(10_000));
    expect(second.permit.renewals).toBe(2);
    const refused = typedError(await extend(20_000), 409, "LEASE_LOST");
    expect(refused.details).toEqual({ lockId: grant.lockId });

    // Not renewed: the store still counts two renewals and the lease it had.
    const seen = documented(
      semaphoreInspectReplySchema,
      await call("GET", semPath(limited) + keyQuery(key)),
    );
    expect(seen.holders).toMatchObject([{ lockId: grant.lockId, renewals: 2 }]);
    expect(seen.holders[0]!.expiresAt).toBe(second.permit.expiresAt);

    // Audited like the lock's renewal-refused, with the permit's holder and fence.
    const row = await eventually(() =>
      h.prisma.lockEvent.findFirst({ where: { lockId: grant.lockId, type: "renewal-refused" } }),
    );
    expect(row).toMatchObject({
      resource: limited,
      tenantId: tenant.id,
      fence: BigInt(grant.fence!),
      clientId: "rest-sem",
      ownerId: "o",
      reason: "renewal-limit",
    });
  });
});
