import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import {
  InvalidArgumentError,
  LockTimeoutError,
  NotHolderError,
  UnknownResourceError,
  fromWire,
} from "@warden/contract";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { HttpServerHandle } from "../src/http/server.js";
import type { AppRouter } from "../src/routers/_app.js";
import {
  registerResource,
  startHarness,
  uid,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";
import { serveHarness } from "./support/lock-client.js";

// What a client receives over real HTTP: Warden's code and its typed details in the
// error's data, enough to rebuild the typed error without reading the message.

let h: Harness;
let http: HttpServerHandle;
let tenant: TenantHandle;
let resource: string;

beforeAll(async () => {
  h = await startHarness();
  http = await serveHarness(h, { maxBodyBytes: 16 * 1024 });
  tenant = await h.tenant();
  resource = await registerResource(tenant, { maxLeaseMs: 10_000 });
});
afterAll(async () => {
  await http?.close();
  await h?.close();
});

function client(clientId = "wire-client") {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${http.url}/trpc`,
        headers: { authorization: `Bearer ${tenant.key}`, "x-warden-client-id": clientId },
      }),
    ],
  });
}

interface WardenData {
  readonly wardenCode: string | null;
  readonly details: Record<string, unknown> | null;
}

async function failure(promise: Promise<unknown>): Promise<{ data: WardenData; message: string }> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  const { data, message } = error as TRPCClientError<AppRouter>;
  return { data: data as unknown as WardenData, message };
}

describe("errors over the wire", () => {
  it("carry NOT_HOLDER's lockId and reason as details", async () => {
    const lockId = "AAAAAAAAAAAAAAAAAAAAAA";
    const { data, message } = await failure(
      client().lock.release.mutate({ resource, businessKey: `w-${uid()}`, lockId, tier: "redis" }),
    );
    expect(data).toMatchObject({
      wardenCode: "NOT_HOLDER",
      details: { lockId, reason: "expired" },
    });
    const typed = fromWire(data.wardenCode, data.details, message);
    expect(typed).toBeInstanceOf(NotHolderError);
    expect((typed as NotHolderError).reason).toBe("expired");
  });

  it("carry an invalid input's field and reason, for schema and policy checks alike", async () => {
    const schema = await failure(
      client().lock.acquire.mutate({ resource, businessKey: "k", ownerId: "o", leaseMs: 0 }),
    );
    expect(schema.data.wardenCode).toBe("INVALID_ARGUMENT");
    expect(schema.data.details).toMatchObject({ field: "leaseMs" });
    // The message is for people: "<field>: <reason>", not zod's JSON.
    expect(schema.message).toBe(`leaseMs: ${String(schema.data.details?.["reason"])}`);
    const policy = await failure(
      client().lock.acquire.mutate({ resource, businessKey: "k", ownerId: "o", leaseMs: 20_000 }),
    );
    expect(policy.data).toMatchObject({
      wardenCode: "INVALID_ARGUMENT",
      details: { field: "leaseMs", reason: `must be at most 10000 ms for ${resource}` },
    });
    const surrogate = await failure(
      client().lock.acquire.mutate({ resource, businessKey: "sur\ud800", ownerId: "o" }),
    );
    expect(surrogate.data).toMatchObject({
      wardenCode: "INVALID_ARGUMENT",
      details: { field: "businessKey" },
    });
    const typed = fromWire(surrogate.data.wardenCode, surrogate.data.details, surrogate.message);
    expect(typed).toBeInstanceOf(InvalidArgumentError);
    expect((typed as InvalidArgumentError).reason).toMatch(/lone UTF-16 surrogate/);
  });

  it("carry the resource of UNKNOWN_RESOURCE and the wait of LOCK_TIMEOUT", async () => {
    const unknown = await failure(
      client().lock.inspect.query({ resource: `nope:${uid()}`, businessKey: "k" }),
    );
    expect(fromWire(unknown.data.wardenCode, unknown.data.details, unknown.message)).toBeInstanceOf(
      UnknownResourceError,
    );
    const key = { resource, businessKey: `t-${uid()}` };
    const grant = await client("holder").lock.acquire.mutate({ ...key, ownerId: "o" });
    expect(grant.granted).toBe(true);
    const timeout = await failure(
      client("waiter").lock.acquire.mutate({ ...key, ownerId: "o", waitMs: 50 }),
    );
    expect(timeout.data).toMatchObject({ wardenCode: "LOCK_TIMEOUT", details: { waitMs: 50 } });
    expect(fromWire(timeout.data.wardenCode, timeout.data.details, timeout.message)).toEqual(
      new LockTimeoutError(50),
    );
  });

  it("never carry an internal error's own message", async () => {
    const leak = "ER_ACCESS_DENIED_ERROR: Access denied for user 'warden'@'10.0.0.7'";
    const registry = h.services.registry;
    // The registry fails where the lock path meets it: in the cached lookup (a synchronous
    // throw) or, when nothing is cached, in the read behind it.
    const failures = [
      () => [
        vi.spyOn(registry, "resolveCached").mockImplementationOnce(() => {
          throw new Error(leak);
        }),
      ],
      () => [
        vi.spyOn(registry, "resolveCached").mockReturnValueOnce(undefined),
        vi.spyOn(registry, "resolve").mockRejectedValueOnce(new Error(leak)),
      ],
    ];
    for (const fail of failures) {
      const spies = fail();
      try {
        const error = await client()
          .lock.acquire.mutate({ resource, businessKey: `i-${uid()}`, ownerId: "o" })
          .then(
            () => null,
            (e: unknown) => e as TRPCClientError<AppRouter>,
          );
        expect(error).toBeInstanceOf(TRPCClientError);
        expect(error?.data).toMatchObject({ code: "INTERNAL_SERVER_ERROR", wardenCode: null });
        expect(error?.message).not.toContain("ER_ACCESS");
        expect(JSON.stringify(error?.data)).not.toContain("ER_ACCESS");
      } finally {
        for (const spy of spies) spy.mockRestore();
      }
    }
  });
});
