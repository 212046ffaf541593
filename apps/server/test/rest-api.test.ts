import { readFile } from "node:fs/promises";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import type { HttpServerHandle } from "../src/http/server.js";
import {
  acquireGrantedSchema,
  acquireRefusedSchema,
  cancelWaitReplySchema,
  errorReplySchema,
  extendReplySchema,
  inspectReplySchema,
  releaseReplySchema,
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

const MAX_BODY = 8 * 1024;
let h: Harness;
let http: HttpServerHandle;
let tenant: TenantHandle;
let other: TenantHandle;
let resource: string;
let foreign: string;

beforeAll(async () => {
  h = await startHarness();
  http = await serveHarness(h, { maxBodyBytes: MAX_BODY });
  tenant = await h.tenant();
  other = await h.tenant();
  resource = await registerResource(tenant, { maxLeaseMs: 20_000 });
  foreign = await registerResource(other);
});
afterAll(async () => {
  await http?.close();
  await h?.close();
});

interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Headers;
}

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Reply> {
  const response = await fetch(`${http.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${tenant.key}`,
      "x-warden-client-id": "rest-test",
      ...headers,
    },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    ...(signal ? { signal } : {}),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text === "" ? null : JSON.parse(text),
    headers: response.headers,
  };
}

/** The reply, checked against the documented schema with no undocumented field. */
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

const lockPath = (name: string, action = "") => `/v1/locks/${encodeURIComponent(name)}${action}`;
const keyQuery = (key: string) => `?businessKey=${encodeURIComponent(key)}`;

describe("the OpenAPI document", () => {
  it("is served at /openapi.json and equals the checked-in docs/openapi.json", async () => {
    const response = await fetch(`${http.url}/openapi.json`);
    expect(response.status).toBe(200);
    const served = (await response.json()) as { openapi: string; paths: Record<string, unknown> };
    const file = fileURLToPath(new URL("../../../docs/openapi.json", import.meta.url));
    const checkedIn: unknown = JSON.parse(await readFile(file, "utf8"));
    // Regenerate with: pnpm --filter @warden/server exec tsx scripts/gen-openapi.ts
    expect(served).toEqual(checkedIn);
    expect(served.openapi).toBe("3.1.0");
    expect(Object.keys(served.paths).sort()).toEqual([
      "/v1/locks/{resource}",
      "/v1/locks/{resource}/acquire",
      "/v1/locks/{resource}/extend",
      "/v1/locks/{resource}/release",
      "/v1/locks/{resource}/revoke-request",
      "/v1/locks/{resource}/try",
      "/v1/locks/{resource}/waiters",
      "/v1/rwlocks/{resource}",
      "/v1/rwlocks/{resource}/extend",
      "/v1/rwlocks/{resource}/read",
      "/v1/rwlocks/{resource}/release",
      "/v1/rwlocks/{resource}/try-read",
      "/v1/rwlocks/{resource}/try-write",
      "/v1/rwlocks/{resource}/waiters",
      "/v1/rwlocks/{resource}/write",
      "/v1/semaphores/{resource}",
      "/v1/semaphores/{resource}/acquire",
      "/v1/semaphores/{resource}/extend",
      "/v1/semaphores/{resource}/release",
      "/v1/semaphores/{resource}/try",
      "/v1/semaphores/{resource}/waiters",
      "/v1/waits/{waitId}",
    ]);
  });

  it("is a valid OpenAPI 3.1 document whose every $ref resolves", async () => {
    const file = fileURLToPath(new URL("../../../docs/openapi.json", import.meta.url));
    const document = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/schemas\/(\w+)"/g)];
    const schemas = (document["components"] as { schemas: Record<string, unknown> }).schemas;
    expect(refs.length).toBeGreaterThan(20);
    for (const [, name] of refs) expect(schemas, name).toHaveProperty(name!);
  });
});

describe("replies are the documented shapes", () => {
  it("acquire, try, extend, inspect, waiters, release, cancel", async () => {
    const key = `shape-${uid()}`;
    const grant = documented(
      acquireGrantedSchema,
      await call("POST", lockPath(resource, "/acquire"), { businessKey: key, ownerId: "o" }),
    );
    documented(
      acquireRefusedSchema,
      await call(
        "POST",
        lockPath(resource, "/try"),
        { businessKey: key, ownerId: "o" },
        {
          "x-warden-client-id": "someone-else",
        },
      ),
    );
    const renewed = documented(
      extendReplySchema,
      await call("POST", lockPath(resource, "/extend"), {
        businessKey: key,
        lockId: grant.lockId,
        tier: grant.tier,
        leaseMs: 12_000,
      }),
    );
    expect(renewed).toMatchObject({ lockId: grant.lockId, fence: grant.fence, renewals: 1 });
    const seen = documented(
      inspectReplySchema,
      await call("GET", lockPath(resource) + keyQuery(key)),
    );
    expect(seen.lease).toMatchObject({ lockId: grant.lockId, holder: { clientId: "rest-test" } });
    documented(waitersReplySchema, await call("GET", lockPath(resource, "/waiters")));
    const released = documented(
      releaseReplySchema,
      await call("POST", lockPath(resource, "/release"), {
        businessKey: key,
        lockId: grant.lockId,
        tier: grant.tier,
      }),
    );
    expect(released.released).toBe(true);
    const free = documented(
      inspectReplySchema,
      await call("GET", lockPath(resource) + keyQuery(key)),
    );
    expect(free.lease).toBeNull();
    const cancel = documented(
      cancelWaitReplySchema,
      await call("DELETE", "/v1/waits/no-such-wait"),
    );
    expect(cancel.cancelled).toBe(false);
  });
});

describe("keys", () => {
  it("any text is a key: slashes, dot segments, spaces and a decomposed é are one NFC key", async () => {
    const key = `a/../b %2F ${uid()} cafe\u0301`;
    const grant = documented(
      acquireGrantedSchema,
      await call("POST", lockPath(resource, "/acquire"), { businessKey: key, ownerId: "o" }),
    );
    const precomposed = key.normalize("NFC");
    const seen = documented(
      inspectReplySchema,
      await call("GET", lockPath(resource) + keyQuery(precomposed)),
    );
    expect(seen.lease).toMatchObject({ lockId: grant.lockId, businessKey: precomposed });
    documented(
      releaseReplySchema,
      await call("POST", lockPath(resource, "/release"), {
        businessKey: precomposed,
        lockId: grant.lockId,
        tier: grant.tier,
      }),
    );
  });
});

describe("typed errors and their HTTP status", () => {
  it("400 INVALID_ARGUMENT names the field: body fields, unknown fields, the path, the query, the client id", async () => {
    const acquire = lockPath(resource, "/acquire");
    const cases: [Reply, string][] = [
      [await call("POST", acquire, { businessKey: "k", ownerId: "o", leaseMs: 0 }), "leaseMs"],
      [await call("POST", acquire, { businessKey: "k", ownerId: "o", leaseMs: 25_000 }), "leaseMs"],
      [await call("POST", acquire, { businessKey: "k|x", ownerId: "o" }), "businessKey"],
      [await call("POST", acquire, { businessKey: "k", ownerId: "o", lease_ms: 5 }), "lease_ms"],
      [await call("POST", acquire, "{not json"), "body"],
      [await call("POST", acquire, "[1]"), "body"],
      [await call("POST", acquire, { ownerId: "o" }), "businessKey"],
      [
        await call("POST", lockPath("bad name!", "/acquire"), { businessKey: "k", ownerId: "o" }),
        "resource",
      ],
      [await call("GET", lockPath(resource)), "businessKey"],
      [await call("GET", lockPath(resource) + "?businessKey=k&key=k"), "key"],
      [
        await call("POST", lockPath(resource, "/try"), {
          businessKey: "k",
          ownerId: "o",
          waitMs: 5,
        }),
        "waitMs",
      ],
      [await call("DELETE", "/v1/waits/short"), "waitId"],
      [
        await call(
          "POST",
          acquire,
          { businessKey: "k", ownerId: "o" },
          { "x-warden-client-id": "" },
        ),
        "clientId",
      ],
    ];
    for (const [reply, field] of cases) {
      const error = typedError(reply, 400, "INVALID_ARGUMENT");
      expect(error.details["field"], JSON.stringify(error)).toBe(field);
    }
    // Nothing was granted by any of them.
    const seen = documented(
      inspectReplySchema,
      await call("GET", lockPath(resource) + keyQuery("k")),
    );
    expect(seen.lease).toBeNull();
  });

  it("401 without a key, with a bad key, or with only an operator's session cookie", async () => {
    const path = lockPath(resource) + keyQuery("k");
    const operator = await h.operator("admin");
    for (const headers of <Record<string, string>[]>[
      { authorization: "" },
      { authorization: "Bearer nope" },
      { authorization: "Basic abc" },
      { authorization: "", cookie: `warden_session=${operator.sessionToken}` },
    ]) {
      typedError(await call("GET", path, undefined, headers), 401, "UNAUTHORIZED");
    }
    // Credentials are checked before the body is read as JSON.
    typedError(
      await call("POST", lockPath(resource, "/acquire"), "{not json", { authorization: "" }),
      401,
      "UNAUTHORIZED",
    );
  });

  it("404 UNKNOWN_RESOURCE: another tenant's resource answers exactly like an unknown one", async () => {
    const unknown = `res:${uid()}`;
    for (const [method, action, body] of [
      ["POST", "/acquire", { businessKey: "k", ownerId: "o" }],
      ["POST", "/release", { businessKey: "k", lockId: "A".repeat(22), tier: "redis" }],
      ["GET", "", undefined],
      ["GET", "/waiters", undefined],
    ] as const) {
      const query = method === "GET" && action === "" ? keyQuery("k") : "";
      const mine = typedError(
        await call(method, lockPath(unknown, action) + query, body),
        404,
        "UNKNOWN_RESOURCE",
      );
      const theirs = typedError(
        await call(method, lockPath(foreign, action) + query, body),
        404,
        "UNKNOWN_RESOURCE",
      );
      expect(theirs).toEqual({
        ...mine,
        message: mine.message.replace(unknown, foreign),
        details: { resource: foreign },
      });
    }
  });

  it("409 NOT_HOLDER: another tenant's lockId on my key answers like an unknown lockId", async () => {
    const theirs = documented(
      acquireGrantedSchema,
      await call(
        "POST",
        lockPath(foreign, "/acquire"),
        { businessKey: "shared", ownerId: "o" },
        { authorization: `Bearer ${other.key}` },
      ),
    );
    documented(
      acquireGrantedSchema,
      await call("POST", lockPath(resource, "/acquire"), { businessKey: "shared", ownerId: "o" }),
    );
    const unknownId = "B".repeat(22);
    for (const action of ["/release", "/extend"]) {
      const withTheirs = typedError(
        await call("POST", lockPath(resource, action), {
          businessKey: "shared",
          lockId: theirs.lockId,
          tier: theirs.tier,
        }),
        409,
        "NOT_HOLDER",
      );
      const withUnknown = typedError(
        await call("POST", lockPath(resource, action), {
          businessKey: "shared",
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
    // Their lock is untouched.
    const still = documented(
      inspectReplySchema,
      await call("GET", lockPath(foreign) + keyQuery("shared"), undefined, {
        authorization: `Bearer ${other.key}`,
      }),
    );
    expect(still.lease?.lockId).toBe(theirs.lockId);
  });

  it("423 LOCK_TIMEOUT when a wait runs out; another tenant cannot cancel my wait by its waitId", async () => {
    const key = `busy-${uid()}`;
    documented(
      acquireGrantedSchema,
      await call("POST", lockPath(resource, "/acquire"), { businessKey: key, ownerId: "o" }),
    );
    const waitId = `wait-${uid()}`;
    const waiting = call(
      "POST",
      lockPath(resource, "/acquire"),
      { businessKey: key, ownerId: "o", waitMs: 800, waitId },
      { "x-warden-client-id": "waiter" },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const cancelled = documented(
      cancelWaitReplySchema,
      await call("DELETE", `/v1/waits/${waitId}`, undefined, {
        authorization: `Bearer ${other.key}`,
      }),
    );
    expect(cancelled.cancelled).toBe(false);
    const error = typedError(await waiting, 423, "LOCK_TIMEOUT");
    expect(error.details).toEqual({ waitMs: 800 });
  });

  it("409 WAIT_CANCELLED when my own DELETE withdraws the wait", async () => {
    const key = `busy-${uid()}`;
    documented(
      acquireGrantedSchema,
      await call("POST", lockPath(resource, "/acquire"), { businessKey: key, ownerId: "o" }),
    );
    const waitId = `wait-${uid()}`;
    const waiting = call(
      "POST",
      lockPath(resource, "/acquire"),
      { businessKey: key, ownerId: "o", waitMs: 20_000, waitId },
      { "x-warden-client-id": "waiter" },
    );
    let cancelled = false;
    for (let i = 0; i < 50 && !cancelled; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      cancelled = documented(
        cancelWaitReplySchema,
        await call("DELETE", `/v1/waits/${waitId}`),
      ).cancelled;
    }
    expect(cancelled).toBe(true);
    expect(typedError(await waiting, 409, "WAIT_CANCELLED").details).toEqual({ waitId });
  });

  it("a client that goes away ends its wait", async () => {
    const key = `gone-${uid()}`;
    documented(
      acquireGrantedSchema,
      await call("POST", lockPath(resource, "/acquire"), { businessKey: key, ownerId: "o" }),
    );
    const controller = new AbortController();
    const waiting = call(
      "POST",
      lockPath(resource, "/acquire"),
      { businessKey: key, ownerId: "o", waitMs: 20_000 },
      { "x-warden-client-id": "waiter" },
      controller.signal,
    ).catch(() => null);
    const waiters = async () =>
      documented(
        waitersReplySchema,
        await call("GET", lockPath(resource, "/waiters") + keyQuery(key)),
      ).waiters.length;
    for (let i = 0; i < 50 && (await waiters()) === 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await waiters()).toBe(1);
    controller.abort();
    await waiting;
    for (let i = 0; i < 50 && (await waiters()) === 1; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await waiters()).toBe(0);
  });

  it("429 QUOTA_EXCEEDED with Retry-After past the tenant's request rate", async () => {
    const slow = await h.tenant(`slow-${uid()}`, 2);
    let reply: Reply | null = null;
    for (let i = 0; i < 30; i += 1) {
      reply = await call("DELETE", "/v1/waits/nothing-here", undefined, {
        authorization: `Bearer ${slow.key}`,
        "x-warden-client-id": "slow",
      });
      if (reply.status !== 200) break;
    }
    const error = typedError(reply!, 429, "QUOTA_EXCEEDED");
    expect(error.details["retryAfterMs"]).toBeGreaterThan(0);
    expect(Number(reply!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  it("404 NOT_FOUND for an unknown path, 405 with Allow for a wrong method, 413 for a large body", async () => {
    typedError(await call("GET", "/v1/nothing"), 404, "NOT_FOUND");
    typedError(await call("GET", lockPath(resource, "/acquire/more")), 404, "NOT_FOUND");
    const wrong = await call("GET", lockPath(resource, "/acquire"));
    typedError(wrong, 405, "METHOD_NOT_ALLOWED");
    expect(wrong.headers.get("allow")).toBe("POST");
    const big = await call("POST", lockPath(resource, "/acquire"), {
      businessKey: "k",
      ownerId: "o",
      pad: "x".repeat(MAX_BODY),
    });
    expect(typedError(big, 413, "INVALID_ARGUMENT").details).toEqual({
      field: "body",
      reason: `must be at most ${MAX_BODY} bytes`,
    });
  });
});

describe("shutdown", () => {
  it("a wait ended by a shutdown answers 503 WAIT_CANCELLED (call another instance), not 409", async () => {
    const second = await serveHarness(h, { maxBodyBytes: MAX_BODY });
    const key = `shutdown-${uid()}`;
    const headers = {
      authorization: `Bearer ${tenant.key}`,
      "x-warden-client-id": "waiter",
      "content-type": "application/json",
    };
    const post = (body: unknown) =>
      fetch(`${second.url}${lockPath(resource, "/acquire")}`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      });
    expect((await post({ businessKey: key, ownerId: "holder" })).status).toBe(200);
    const waiting = post({ businessKey: key, ownerId: "o", waitMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const closed = second.close();
    const reply = await waiting;
    const body = (await reply.json()) as { error?: { code: string } };
    expect([reply.status, body.error?.code]).toEqual([503, "WAIT_CANCELLED"]);
    expect(reply.headers.get("retry-after")).toBeNull();
    await closed;
  });

  it("a call that arrives while the instance shuts down answers 503 LOCK_UNAVAILABLE, reason shutting-down", async () => {
    const second = await serveHarness(h, { maxBodyBytes: MAX_BODY });
    const { hostname, port } = new URL(second.url);
    const body = JSON.stringify({ businessKey: `closing-${uid()}`, ownerId: "o" });
    // A request begun before the close (its first line is in), completed after: its
    // connection is busy, so the close does not cut it, and its call sees the shutdown.
    const socket = connect(Number(port), hostname);
    await new Promise((resolve) => socket.once("connect", resolve));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise((resolve) => socket.once("close", resolve));
    socket.write(`POST ${lockPath(resource, "/acquire")} HTTP/1.1\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = second.close();
    socket.end(
      `host: ${hostname}:${port}\r\nauthorization: Bearer ${tenant.key}\r\n` +
        `x-warden-client-id: late\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
    await ended;
    await closed;
    const reply = Buffer.concat(chunks).toString("utf8");
    expect(reply).toMatch(/^HTTP\/1\.1 503 /);
    const json = JSON.parse(reply.slice(reply.indexOf("{"), reply.lastIndexOf("}") + 1)) as {
      error: { code: string; details: unknown };
    };
    expect(json.error).toMatchObject({
      code: "LOCK_UNAVAILABLE",
      details: { retryAfterMs: null, reason: "shutting-down" },
    });
    expect(errorReplySchema.safeParse(json).success).toBe(true);
  });
});
