import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import type { HttpServerHandle } from "../src/http/server.js";
import {
  errorReplySchema,
  rwExtendReplySchema,
  rwGrantedSchema,
  rwInspectReplySchema,
  rwRefusedSchema,
  rwReleaseReplySchema,
  semaphoreInspectReplySchema,
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

// The HTTP/JSON read-write lock routes (docs/decisions/0180) on a real server over real Redis
// and MariaDB: documented replies, shared read fences, waits woken by releases and listed with
// the waiters, maxRenewals, typed errors that change nothing, kind mix-ups, tenant scoping, a
// gone client, a shutdown, and a Python standard-library client's full cycle.

const run = promisify(execFile);

let h: Harness;
let http: HttpServerHandle;
let tenant: TenantHandle;
let other: TenantHandle;
let rw: string;
let foreign: string;
let mutex: string;
let semaphore: string;
let limited: string;

const POLICY = {
  defaultLeaseMs: 5_000,
  maxLeaseMs: 20_000,
  maxRenewals: null,
  expectedHoldMs: null,
  degrade: true,
  localFallback: "deny",
  fair: false,
  waitReplicas: 0,
  description: "read-write lock REST test",
} as const;

async function registerRw(t: TenantHandle, maxRenewals: number | null = null): Promise<string> {
  const name = `rw:${uid()}`;
  await t.caller().resource.create({ ...POLICY, name, kind: "rwlock", maxRenewals });
  return name;
}

beforeAll(async () => {
  h = await startHarness();
  http = await serveHarness(h, { maxBodyBytes: 8 * 1024 });
  tenant = await h.tenant();
  other = await h.tenant();
  rw = await registerRw(tenant);
  foreign = await registerRw(other);
  limited = await registerRw(tenant, 1);
  mutex = await registerResource(tenant);
  semaphore = `sem:${uid()}`;
  await tenant
    .caller()
    .resource.create({ ...POLICY, name: semaphore, kind: "semaphore", permits: 2 });
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
  options: { readonly raw?: string; readonly signal?: AbortSignal; readonly url?: string } = {},
): Promise<Reply> {
  const response = await fetch(`${options.url ?? http.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${tenant.key}`,
      "x-warden-client-id": "rest-rw",
      ...headers,
    },
    ...(options.raw !== undefined
      ? { body: options.raw }
      : body === undefined
        ? {}
        : { body: JSON.stringify(body) }),
    ...(options.signal ? { signal: options.signal } : {}),
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

/** Polls `check` every 20 ms until it is true, for up to 15 s. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within 15 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const rwPath = (name: string, action = "") => `/v1/rwlocks/${encodeURIComponent(name)}${action}`;
const keyQuery = (key: string) => `?businessKey=${encodeURIComponent(key)}`;

/** The rwlock's waiters over REST (the fleet's), of one key or, without `key`, all. */
async function waiters(resource: string, key?: string) {
  return documented(
    waitersReplySchema,
    await call("GET", rwPath(resource, "/waiters") + (key === undefined ? "" : keyQuery(key))),
  );
}

async function inspect(resource: string, key: string, apiKey = tenant.key) {
  return documented(
    rwInspectReplySchema,
    await call("GET", rwPath(resource) + keyQuery(key), undefined, {
      authorization: `Bearer ${apiKey}`,
    }),
  );
}

/** Nothing live on the key: no writer, no readers. */
async function expectFree(resource: string, key: string, apiKey = tenant.key): Promise<void> {
  const seen = await inspect(resource, key, apiKey);
  expect(seen.writer).toBeNull();
  expect(seen.readers).toEqual([]);
}

/** How many acquires of `resource` in `mode` ended with `outcome` on this instance. */
async function acquiresCounted(resource: string, mode: string, outcome: string): Promise<number> {
  const metric = h.services.metrics.registry.getSingleMetric("warden_rwlock_acquires_total");
  if (!metric) return 0;
  const { values } = await metric.get();
  return values
    .filter(
      (v) =>
        v.labels["resource"] === resource &&
        v.labels["mode"] === mode &&
        v.labels["outcome"] === outcome,
    )
    .reduce((sum, v) => sum + v.value, 0);
}

describe("read-write lock routes answer the documented shapes", () => {
  it("readers share a fence, a writer is refused read-held, a waiting writer is granted after the last release with a larger fence", async () => {
    const key = `orders/${uid()} ../naïve`;
    const first = documented(
      rwGrantedSchema,
      await call("POST", rwPath(rw, "/read"), { businessKey: key, ownerId: "r1" }),
    );
    expect(first).toMatchObject({ mode: "read", reentered: false, maxRenewals: null });
    expect(first.holder).toEqual({ clientId: "rest-rw", ownerId: "r1" });
    const second = documented(
      rwGrantedSchema,
      await call(
        "POST",
        rwPath(rw, "/try-read"),
        { businessKey: key, ownerId: "r2" },
        { "x-warden-client-id": "rest-rw-2" },
      ),
    );
    expect(second.lockId).not.toBe(first.lockId);
    expect(second.fence).toBe(first.fence);

    const refused = documented(
      rwRefusedSchema,
      await call("POST", rwPath(rw, "/try-write"), { businessKey: key, ownerId: "w" }),
    );
    expect(refused).toMatchObject({ granted: false, mode: "write", reason: "read-held" });
    expect(refused.holders).toEqual(
      expect.arrayContaining([
        { clientId: "rest-rw", ownerId: "r1" },
        { clientId: "rest-rw-2", ownerId: "r2" },
      ]),
    );
    expect(refused.holders).toHaveLength(2);
    // A refused try registers no intent: a new reader still enters.
    const third = documented(
      rwGrantedSchema,
      await call("POST", rwPath(rw, "/try-read"), { businessKey: key, ownerId: "r3" }),
    );
    expect(third.fence).toBe(first.fence);
    documented(
      rwReleaseReplySchema,
      await call("POST", rwPath(rw, "/release"), {
        businessKey: key,
        lockId: third.lockId,
        tier: third.tier,
      }),
    );

    const waiting = call(
      "POST",
      rwPath(rw, "/write"),
      { businessKey: key, ownerId: "w", waitMs: 30_000 },
      { "x-warden-client-id": "rest-writer" },
    );
    // With writer preference (the default) a waiting writer stops new readers.
    await until(async () => (await inspect(rw, key)).waitingWriters === 1, "the writer waits");
    const held = documented(
      rwRefusedSchema,
      await call("POST", rwPath(rw, "/try-read"), { businessKey: key, ownerId: "r4" }),
    );
    expect(held).toMatchObject({ reason: "writer-waiting", holders: [] });

    const one = documented(
      rwReleaseReplySchema,
      await call("POST", rwPath(rw, "/release"), {
        businessKey: key,
        lockId: first.lockId,
        tier: first.tier,
      }),
    );
    expect(one).toMatchObject({ released: true, mode: "read", fence: first.fence });
    documented(
      rwReleaseReplySchema,
      await call("POST", rwPath(rw, "/release"), {
        businessKey: key,
        lockId: second.lockId,
        tier: second.tier,
      }),
    );
    const writer = documented(rwGrantedSchema, await waiting);
    expect(writer).toMatchObject({
      mode: "write",
      holder: { clientId: "rest-writer", ownerId: "w" },
    });
    expect(BigInt(writer.fence!)).toBeGreaterThan(BigInt(first.fence!));

    const seen = await inspect(rw, key);
    expect(seen.writer).toMatchObject({ lockId: writer.lockId, mode: "write" });
    expect(seen.readers).toEqual([]);
    const blocked = documented(
      rwRefusedSchema,
      await call("POST", rwPath(rw, "/try-read"), { businessKey: key, ownerId: "r5" }),
    );
    expect(blocked).toMatchObject({ reason: "write-held", holders: [writer.holder] });

    const release = () =>
      call("POST", rwPath(rw, "/release"), {
        businessKey: key,
        lockId: writer.lockId,
        tier: writer.tier,
      });
    documented(rwReleaseReplySchema, await release());
    const again = typedError(await release(), 409, "NOT_HOLDER");
    expect(again.details["lockId"]).toBe(writer.lockId);

    // The next reader starts a new generation, fenced above the writer.
    const next = documented(
      rwGrantedSchema,
      await call("POST", rwPath(rw, "/try-read"), { businessKey: key, ownerId: "r6" }),
    );
    expect(BigInt(next.fence!)).toBeGreaterThan(BigInt(writer.fence!));
  });

  it("extend renews a grant; inspect shows the readers, their shared fence and the tier", async () => {
    const key = `extend-${uid()}`;
    expect(await inspect(rw, key)).toMatchObject({
      writer: null,
      readers: [],
      readFence: null,
      waitingWriters: 0,
      writerPreference: true,
      tier: null,
    });
    const grant = documented(
      rwGrantedSchema,
      await call("POST", rwPath(rw, "/read"), { businessKey: key, ownerId: "o", leaseMs: 3_000 }),
    );
    const renewed = documented(
      rwExtendReplySchema,
      await call("POST", rwPath(rw, "/extend"), {
        businessKey: key,
        lockId: grant.lockId,
        tier: grant.tier,
        leaseMs: 15_000,
      }),
    );
    expect(renewed.grant).toMatchObject({ lockId: grant.lockId, mode: "read", renewals: 1 });
    expect(renewed.grant.ttlMs).toBeGreaterThan(10_000);
    const seen = await inspect(rw, key);
    expect(seen).toMatchObject({ writer: null, readFence: grant.fence, tier: grant.tier });
    expect(seen.readers).toMatchObject([{ lockId: grant.lockId, renewals: 1 }]);

    // The same holder reading again re-enters: one more entry to release.
    const reentry = documented(
      rwGrantedSchema,
      await call("POST", rwPath(rw, "/try-read"), { businessKey: key, ownerId: "o" }),
    );
    expect(reentry).toMatchObject({ lockId: grant.lockId, reentered: true });
    const release = () =>
      call("POST", rwPath(rw, "/release"), {
        businessKey: key,
        lockId: grant.lockId,
        tier: grant.tier,
      });
    expect(documented(rwReleaseReplySchema, await release()).released).toBe(false);
    expect(documented(rwReleaseReplySchema, await release()).released).toBe(true);
    await expectFree(rw, key);
  });

  it("a wait that runs out is 423 LOCK_TIMEOUT, for readers and writers", async () => {
    const key = `timeout-${uid()}`;
    const writer = documented(
      rwGrantedSchema,
      await call("POST", rwPath(rw, "/write"), { businessKey: key, ownerId: "w" }),
    );
    for (const action of ["/read", "/write"]) {
      const timedOut = typedError(
        await call("POST", rwPath(rw, action), { businessKey: key, ownerId: "t", waitMs: 200 }),
        423,
        "LOCK_TIMEOUT",
      );
      expect(timedOut.details).toEqual({ waitMs: 200 });
    }
    const seen = await inspect(rw, key);
    expect(seen.writer?.lockId).toBe(writer.lockId);
    expect(seen.readers).toEqual([]);
  });
});

describe("read-write waits are listed; renewals are limited", () => {
  it("a waiting writer is listed on the rwlock's waiters route, and the list empties once it is granted", async () => {
    const key = `waiters-${uid()}`;
    expect((await waiters(rw, key)).waiters).toEqual([]);
    const reader = documented(
      rwGrantedSchema,
      await call("POST", rwPath(rw, "/read"), { businessKey: key, ownerId: "r" }),
    );
    const before = Date.now();
    const waiting = call(
      "POST",
      rwPath(rw, "/write"),
      { businessKey: key, ownerId: "w", waitMs: 30_000 },
      { "x-warden-client-id": "rest-listed-writer" },
    );
    await until(async () => (await waiters(rw, key)).waiters.length === 1, "the writer is listed");
    const listed = await waiters(rw, key);
    expect(listed.fair).toBe(false);
    expect(listed.waiters).toMatchObject([
      {
        resource: rw,
        businessKey: key,
        clientId: "rest-listed-writer",
        ownerId: "w",
        position: 0,
      },
    ]);
    const [writerWait] = listed.waiters;
    expect(writerWait!.since).toBeGreaterThanOrEqual(before);
    expect(writerWait!.since).toBeLessThanOrEqual(Date.now());
    // The resource's list (no businessKey) has it too, and tRPC says these are rw waits.
    expect((await waiters(rw)).waiters).toEqual(
      expect.arrayContaining([expect.objectContaining({ businessKey: key, ownerId: "w" })]),
    );
    const overTrpc = await tenant.caller().holder.waiters({ resource: rw, businessKey: key });
    expect(overTrpc.kind).toBe("rw");
    expect(overTrpc.waiters).toMatchObject([{ clientId: "rest-listed-writer", ownerId: "w" }]);

    documented(
      rwReleaseReplySchema,
      await call("POST", rwPath(rw, "/release"), {
        businessKey: key,
        lockId: reader.lockId,
        tier: reader.tier,
      }),
    );
    const writer = documented(rwGrantedSchema, await waiting);
    expect(writer.holder).toEqual({ clientId: "rest-listed-writer", ownerId: "w" });
    // A granted wait leaves the list before its reply is written.
    expect((await waiters(rw, key)).waiters).toEqual([]);
    documented(
      rwReleaseReplySchema,
      await call("POST", rwPath(rw, "/release"), {
        businessKey: key,
        lockId: writer.lockId,
        tier: writer.tier,
      }),
    );
    await expectFree(rw, key);
  });

  it("past the resource's maxRenewals an extend is 409 LEASE_LOST and the grant is not renewed", async () => {
    const key = `renew-${uid()}`;
    const grant = documented(
      rwGrantedSchema,
      await call("POST", rwPath(limited, "/write"), {
        businessKey: key,
        ownerId: "o",
        leaseMs: 10_000,
      }),
    );
    expect(grant.maxRenewals).toBe(1);
    const extend = () =>
      call("POST", rwPath(limited, "/extend"), {
        businessKey: key,
        lockId: grant.lockId,
        tier: grant.tier,
        leaseMs: 10_000,
      });
    const first = documented(rwExtendReplySchema, await extend());
    expect(first.grant.renewals).toBe(1);
    const refused = typedError(await extend(), 409, "LEASE_LOST");
    expect(refused.details).toEqual({ lockId: grant.lockId });
    // Not renewed: the store still counts one renewal and the expiry it had.
    const seen = await inspect(limited, key);
    expect(seen.writer).toMatchObject({ lockId: grant.lockId, renewals: 1 });
    expect(seen.writer!.expiresAt).toBe(first.grant.expiresAt);
    documented(
      rwReleaseReplySchema,
      await call("POST", rwPath(limited, "/release"), {
        businessKey: key,
        lockId: grant.lockId,
        tier: grant.tier,
      }),
    );
    await expectFree(limited, key);
  });
});

describe("read-write lock routes: typed errors change nothing", () => {
  it("400 INVALID_ARGUMENT names the field; nothing is held afterwards", async () => {
    const key = `bad-${uid()}`;
    const lockId = "A".repeat(22);
    const cases: [string, unknown, string][] = [
      ["/read", { businessKey: key, ownerId: "o", lease_ms: 1_000 }, "lease_ms"],
      ["/write", { businessKey: key, ownerId: "o", resource: rw }, "resource"],
      ["/read", { businessKey: key, ownerId: "o", leaseMs: 25_000 }, "leaseMs"],
      ["/write", { businessKey: key, ownerId: "o", leaseMs: 600_000 }, "leaseMs"],
      ["/write", { businessKey: key, ownerId: "o", waitMs: -1 }, "waitMs"],
      ["/read", { businessKey: key, ownerId: "o", waitMs: 1.5 }, "waitMs"],
      ["/try-read", { businessKey: key, ownerId: "o", waitMs: 1_000 }, "waitMs"],
      ["/try-write", { businessKey: "", ownerId: "o" }, "businessKey"],
      ["/read", { businessKey: key, ownerId: "" }, "ownerId"],
      ["/read", { businessKey: key }, "ownerId"],
      ["/release", { businessKey: key, lockId: "short", tier: "redis" }, "lockId"],
      ["/release", { businessKey: key, lockId }, "tier"],
      ["/extend", { businessKey: key, lockId, tier: "disk" }, "tier"],
      ["/extend", { businessKey: key, lockId, tier: "redis", leaseMs: 25_000 }, "leaseMs"],
    ];
    for (const [action, body, field] of cases) {
      const error = typedError(
        await call("POST", rwPath(rw, action), body),
        400,
        "INVALID_ARGUMENT",
      );
      expect(error.details["field"], `${action} ${JSON.stringify(body)}`).toBe(field);
    }
    for (const raw of ["{not json", "[1]"]) {
      const error = typedError(
        await call("POST", rwPath(rw, "/write"), undefined, {}, { raw }),
        400,
        "INVALID_ARGUMENT",
      );
      expect(error.details["field"]).toBe("body");
    }
    const noClient = typedError(
      await call(
        "POST",
        rwPath(rw, "/write"),
        { businessKey: key, ownerId: "o" },
        { "x-warden-client-id": "" },
      ),
      400,
      "INVALID_ARGUMENT",
    );
    expect(noClient.details["field"]).toBe("clientId");
    typedError(await call("GET", rwPath(rw)), 400, "INVALID_ARGUMENT");
    const extra = typedError(
      await call("GET", rwPath(rw) + keyQuery(key) + "&mode=read"),
      400,
      "INVALID_ARGUMENT",
    );
    expect(extra.details["field"]).toBe("mode");
    typedError(await call("GET", rwPath(rw, "/read")), 405, "METHOD_NOT_ALLOWED");
    typedError(await call("POST", rwPath(rw, "/upgrade"), {}), 404, "NOT_FOUND");
    await expectFree(rw, key);
    expect((await inspect(rw, key)).waitingWriters).toBe(0);
  });

  it("a mutex or a semaphore is INVALID_ARGUMENT on kind on the rwlock routes, and an rwlock on the lock and semaphore routes", async () => {
    const key = `kind-${uid()}`;
    const lockId = "A".repeat(22);
    const rwCalls = [
      ["POST", "/read", { businessKey: key, ownerId: "o" }],
      ["POST", "/write", { businessKey: key, ownerId: "o", waitMs: 1_000 }],
      ["POST", "/try-read", { businessKey: key, ownerId: "o" }],
      ["POST", "/try-write", { businessKey: key, ownerId: "o" }],
      ["POST", "/release", { businessKey: key, lockId, tier: "redis" }],
      ["POST", "/extend", { businessKey: key, lockId, tier: "redis" }],
      ["GET", keyQuery(key), undefined],
      ["GET", "/waiters", undefined],
    ] as const;
    for (const resource of [mutex, semaphore]) {
      for (const [method, action, body] of rwCalls) {
        const error = typedError(
          await call(method, rwPath(resource, action), body),
          400,
          "INVALID_ARGUMENT",
        );
        expect(error.details["field"], `${resource} ${action}`).toBe("kind");
      }
    }
    const name = encodeURIComponent(rw);
    for (const [method, path, body] of [
      ["POST", `/v1/locks/${name}/acquire`, { businessKey: key, ownerId: "o" }],
      ["POST", `/v1/locks/${name}/try`, { businessKey: key, ownerId: "o" }],
      ["GET", `/v1/locks/${name}${keyQuery(key)}`, undefined],
      ["GET", `/v1/locks/${name}/waiters`, undefined],
      ["POST", `/v1/semaphores/${name}/acquire`, { businessKey: key, ownerId: "o" }],
      ["POST", `/v1/semaphores/${name}/try`, { businessKey: key, ownerId: "o" }],
      ["GET", `/v1/semaphores/${name}/waiters`, undefined],
    ] as const) {
      const error = typedError(await call(method, path, body), 400, "INVALID_ARGUMENT");
      expect(error.details["field"], path).toBe("kind");
    }
    // Nothing is held anywhere.
    await expectFree(rw, key);
    expect(
      (await tenant.caller().lock.inspect({ resource: mutex, businessKey: key })).lease,
    ).toBeNull();
    const permits = documented(
      semaphoreInspectReplySchema,
      await call("GET", `/v1/semaphores/${encodeURIComponent(semaphore)}${keyQuery(key)}`),
    );
    expect(permits.inUse).toBe(0);
  });

  it("401 without a valid key; 404 for another tenant's rwlock exactly like an unknown one", async () => {
    for (const authorization of ["", "Bearer not-a-key"]) {
      typedError(
        await call(
          "POST",
          rwPath(rw, "/try-read"),
          { businessKey: "k", ownerId: "o" },
          { authorization },
        ),
        401,
        "UNAUTHORIZED",
      );
    }
    const key = `theirs-${uid()}`;
    const theirs = documented(
      rwGrantedSchema,
      await call(
        "POST",
        rwPath(foreign, "/write"),
        { businessKey: key, ownerId: "o" },
        { authorization: `Bearer ${other.key}` },
      ),
    );
    const unknown = `rw:${uid()}`;
    for (const [method, action, body] of [
      ["POST", "/read", { businessKey: key, ownerId: "o" }],
      ["POST", "/write", { businessKey: key, ownerId: "o", waitMs: 1_000 }],
      ["POST", "/try-read", { businessKey: key, ownerId: "o" }],
      ["POST", "/try-write", { businessKey: key, ownerId: "o" }],
      ["POST", "/release", { businessKey: key, lockId: theirs.lockId, tier: theirs.tier }],
      ["POST", "/extend", { businessKey: key, lockId: theirs.lockId, tier: theirs.tier }],
      ["GET", "", undefined],
      ["GET", "/waiters", undefined],
    ] as const) {
      const query = method === "GET" ? keyQuery(key) : "";
      const mine = typedError(
        await call(method, rwPath(unknown, action) + query, body),
        404,
        "UNKNOWN_RESOURCE",
      );
      const foreignError = typedError(
        await call(method, rwPath(foreign, action) + query, body),
        404,
        "UNKNOWN_RESOURCE",
      );
      expect(foreignError).toEqual({
        ...mine,
        message: mine.message.replace(unknown, foreign),
        details: { resource: foreign },
      });
    }
    // Their grant is untouched: still held, not renewed.
    const still = await inspect(foreign, key, other.key);
    expect(still.writer).toMatchObject({ lockId: theirs.lockId, renewals: 0 });
  });

  it("409 NOT_HOLDER: another tenant's lockId on my key answers like an unknown lockId", async () => {
    const key = `shared-${uid()}`;
    const theirs = documented(
      rwGrantedSchema,
      await call(
        "POST",
        rwPath(foreign, "/read"),
        { businessKey: key, ownerId: "o" },
        { authorization: `Bearer ${other.key}` },
      ),
    );
    const mine = documented(
      rwGrantedSchema,
      await call("POST", rwPath(rw, "/read"), { businessKey: key, ownerId: "o" }),
    );
    const unknownId = "B".repeat(22);
    for (const action of ["/release", "/extend"]) {
      const withTheirs = typedError(
        await call("POST", rwPath(rw, action), {
          businessKey: key,
          lockId: theirs.lockId,
          tier: theirs.tier,
        }),
        409,
        "NOT_HOLDER",
      );
      const withUnknown = typedError(
        await call("POST", rwPath(rw, action), {
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
    expect((await inspect(rw, key)).readers).toMatchObject([{ lockId: mine.lockId, renewals: 0 }]);
    expect((await inspect(foreign, key, other.key)).readers).toMatchObject([
      { lockId: theirs.lockId, renewals: 0 },
    ]);
  });
});

describe("waits end with their caller", () => {
  it("a client that goes away ends its wait: it is never granted", async () => {
    const key = `gone-${uid()}`;
    const reader = documented(
      rwGrantedSchema,
      await call("POST", rwPath(rw, "/read"), { businessKey: key, ownerId: "r" }),
    );
    const cancelledBefore = await acquiresCounted(rw, "write", "cancelled");
    const controller = new AbortController();
    const waiting = call(
      "POST",
      rwPath(rw, "/write"),
      { businessKey: key, ownerId: "gone", waitMs: 30_000 },
      { "x-warden-client-id": "gone-writer" },
      { signal: controller.signal },
    ).catch(() => null);
    await until(async () => (await inspect(rw, key)).waitingWriters === 1, "the writer waits");
    controller.abort();
    expect(await waiting).toBeNull();
    await until(
      async () => (await acquiresCounted(rw, "write", "cancelled")) > cancelledBefore,
      "the wait is counted as cancelled",
    );
    // Its wait is over: the reader's release grants it nothing.
    documented(
      rwReleaseReplySchema,
      await call("POST", rwPath(rw, "/release"), {
        businessKey: key,
        lockId: reader.lockId,
        tier: reader.tier,
      }),
    );
    await expectFree(rw, key);
  });

  /** Runs a client script of test/rest against the server on a new rwlock resource. */
  async function runCycle(command: string, file: string): Promise<string> {
    const resource = await registerRw(tenant);
    const script = fileURLToPath(new URL(`./rest/${file}`, import.meta.url));
    try {
      const { stdout } = await run(command, [script], {
        env: {
          ...process.env,
          WARDEN_URL: http.url,
          WARDEN_API_KEY: tenant.key,
          RESOURCE: resource,
        },
        timeout: 60_000,
      });
      return stdout;
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string; message: string };
      throw new Error(
        `${command} failed: ${failed.stderr || failed.message}\n${failed.stdout ?? ""}`,
      );
    }
  }

  it("Python's standard library: a full cycle with a write wait woken by a read release", async () => {
    const stdout = await runCycle("python3", "rwlock_cycle.py");
    expect(stdout).toContain("writer-c was woken");
    expect(stdout).toContain("python rwlock cycle: ok");
  }, 60_000);

  it("curl + jq: shared reads, a write wait woken by the last read release, extend, inspect", async () => {
    const stdout = await runCycle("bash", "rwlock-cycle.sh");
    expect(stdout).toContain("writer-c was woken");
    expect(stdout).toContain("curl rwlock cycle: ok");
  }, 60_000);

  // Last: it closes a second HTTP server over the same services, which cancels their waits.
  it("a wait ended by a shutdown answers 503 WAIT_CANCELLED (call another instance)", async () => {
    const second = await serveHarness(h, { maxBodyBytes: 8 * 1024, shutdownGraceMs: 5_000 });
    const key = `shutdown-${uid()}`;
    const writer = documented(
      rwGrantedSchema,
      await call("POST", rwPath(rw, "/write"), { businessKey: key, ownerId: "w" }),
    );
    const waiting = call(
      "POST",
      rwPath(rw, "/read"),
      { businessKey: key, ownerId: "r", waitMs: 30_000 },
      {},
      { url: second.url },
    );
    // Listed once it waits: from then on the shutdown's cancelAll of the waiters ends it.
    await until(async () => (await waiters(rw, key)).waiters.length === 1, "the read waits");
    const closed = second.close();
    const reply = await waiting;
    const error = typedError(reply, 503, "WAIT_CANCELLED");
    expect(error.details).toEqual({ waitId: null });
    await closed;
    // The writer is untouched, no reader entered and the wait is no longer listed.
    const seen = await inspect(rw, key);
    expect(seen.writer?.lockId).toBe(writer.lockId);
    expect(seen.readers).toEqual([]);
    expect((await waiters(rw, key)).waiters).toEqual([]);
  }, 30_000);
});
