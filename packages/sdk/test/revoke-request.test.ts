// Cooperative revocation (docs/decisions/0176-cooperative-revocation.md): two real server
// instances on one Redis and one MariaDB. A holder connected to instance A is asked, through
// instance B, to release its lock: its `onRevokeRequested` listeners run with the reason and
// its `revokeSignal` aborts; it releases and the requester gets the key. A request is only a
// request (a holder that ignores it keeps its lock), a key without a lease is NOT_HOLDER with
// nothing audited, and another tenant's resource is exactly an unknown one.
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTRPCClient, httpLink, TRPCClientError, type TRPCClient } from "@trpc/client";
import { loadEnv, startServer, type AppRouter, type RunningServer } from "@warden/server";
import { freePort } from "@warden/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Lock, RevokeRequest } from "../src/index.js";
import { startStack, uid, type Stack } from "./support/stack.js";
import { delay, until } from "./support/until.js";

let stack: Stack;
let serverB: RunningServer;
let spoolB: string;
/** The tenant's API key, as a tRPC client of instance B. */
let viaB: TRPCClient<AppRouter>;
let urlB: string;

function trpcClient(url: string, apiKey: string): TRPCClient<AppRouter> {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${url}/trpc`,
        headers: { authorization: `Bearer ${apiKey}`, "x-warden-client-id": `req-${uid()}` },
      }),
    ],
  });
}

beforeAll(async () => {
  stack = await startStack();
  spoolB = await mkdtemp(join(tmpdir(), "warden-sdk-spool-b-"));
  const port = await freePort();
  urlB = `http://127.0.0.1:${port}`;
  serverB = await startServer(
    loadEnv({
      DATABASE_URL: stack.db.url,
      REDIS_URL: stack.redis.url,
      WARDEN_HOST: "127.0.0.1",
      WARDEN_PORT: String(port),
      WARDEN_LOG_LEVEL: "fatal",
      WARDEN_AUDIT_SPOOL_DIR: spoolB,
      WARDEN_AUDIT_FLUSH_MS: "50",
      WARDEN_SHUTDOWN_GRACE_MS: "500",
      WARDEN_INSTANCE_ID: `sdk-test-b-${uid()}`,
    }),
  );
  viaB = trpcClient(urlB, stack.apiKey);
});

afterAll(async () => {
  await serverB?.stop();
  await stack?.close();
  if (spoolB) await rm(spoolB, { recursive: true, force: true });
});

/** The audited revoke requests of a key, as MariaDB has them. */
function auditedRequests(resource: string, businessKey: string) {
  return stack.server().services.prisma.lockEvent.findMany({
    where: { type: "revoke-requested", resource, businessKey },
  });
}

/** The rejection of `promise` (fails the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<TRPCClientError<AppRouter>> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TRPCClientError);
    return error as TRPCClientError<AppRouter>;
  }
  throw new Error("expected a rejection");
}

describe("cooperative revocation across instances", () => {
  test("a holder on A asked through B hears the reason, releases, and the requester acquires", async () => {
    const resource = await stack.resource("revoke");
    const holderClient = stack.client({ url: stack.url });
    const requester = stack.client({ url: urlB });
    const lock = await holderClient.acquire(resource, "order-1", { leaseMs: 30_000 });
    const heard: RevokeRequest[] = [];
    const released: Promise<void>[] = [];
    lock.onRevokeRequested((request) => {
      heard.push(request);
      released.push(lock.release());
    });
    expect(lock.revokeSignal.aborted).toBe(false);
    // Taken while the holder holds it.
    expect(await requester.tryAcquire(resource, "order-1")).toBeNull();

    const reply = await viaB.lock.requestRevoke.mutate({
      resource,
      businessKey: "order-1",
      reason: "draining this worker",
    });
    expect(reply.lockId).toBe(lock.lockId);
    expect(reply.holder.clientId).toBe(holderClient.clientId);

    await until(() => heard.length > 0, 10_000);
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({
      resource,
      businessKey: "order-1",
      lockId: lock.lockId,
      reason: "draining this worker",
      requestedBy: expect.stringMatching(new RegExp(`^tenant:${stack.tenantId}/key:`)) as string,
    });
    expect(lock.revokeSignal.aborted).toBe(true);
    expect((lock.revokeSignal.reason as RevokeRequest).lockId).toBe(lock.lockId);
    await Promise.all(released);
    expect(lock.held).toBe(false);

    const mine = await requester.acquire(resource, "order-1");
    expect(mine.fence).not.toBe(lock.fence);
    await mine.release();

    const rows = await until(async () => {
      const found = await auditedRequests(resource, "order-1");
      return found.length > 0 ? found : null;
    }, 10_000);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      lockId: lock.lockId,
      clientId: holderClient.clientId,
      reason: "draining this worker",
      tenantId: stack.tenantId,
    });
    expect(rows[0]!.actor).toMatch(/^tenant:/);
  });

  test("a request is only a request: a holder that does not listen keeps its lock", async () => {
    const resource = await stack.resource("revoke-ignored");
    const holderClient = stack.client({ url: stack.url });
    const other = stack.client({ url: urlB });
    const lock: Lock = await holderClient.acquire(resource, "k", { leaseMs: 2_000 });
    await viaB.lock.requestRevoke.mutate({ resource, businessKey: "k" });
    await until(() => lock.revokeSignal.aborted, 10_000);
    expect((lock.revokeSignal.reason as RevokeRequest).reason).toBeNull();
    // A listener added after the request hears the first one.
    const late = await new Promise<RevokeRequest>((resolve) => lock.onRevokeRequested(resolve));
    expect(late.lockId).toBe(lock.lockId);
    // Past one lease: the watchdog kept it, nobody else got it.
    await delay(2_500);
    await lock.extend();
    expect(lock.held).toBe(true);
    expect(lock.signal.aborted).toBe(false);
    expect(await other.tryAcquire(resource, "k")).toBeNull();
    const inspected = await viaB.lock.inspect.query({ resource, businessKey: "k" });
    expect(inspected.lease?.lockId).toBe(lock.lockId);
    await lock.release();
  });

  test("a lock set hears a request for any member; its other members are unaffected", async () => {
    const resource = await stack.resource("revoke-set");
    const holderClient = stack.client({ url: stack.url });
    const set = await holderClient.acquireAll(resource, ["a", "b", "c"]);
    const heard: RevokeRequest[] = [];
    const off = set.onRevokeRequested((request) => heard.push(request));
    expect(set.revokeSignal.aborted).toBe(false);
    await viaB.lock.requestRevoke.mutate({ resource, businessKey: "b", reason: "need b" });
    await until(() => heard.length > 0, 10_000);
    expect(heard.map((request) => request.businessKey)).toEqual(["b"]);
    expect(set.revokeSignal.aborted).toBe(true);
    expect((set.revokeSignal.reason as RevokeRequest).lockId).toBe(set.lock("b").lockId);
    expect(set.lock("a").revokeSignal.aborted).toBe(false);
    expect(set.held).toBe(true);
    // Unsubscribed: a later request is not heard by the set's listener.
    off();
    await viaB.lock.requestRevoke.mutate({ resource, businessKey: "a" });
    await until(() => set.lock("a").revokeSignal.aborted, 10_000);
    expect(heard).toHaveLength(1);
    await set.release();
  });

  test("a lockId that does not hold the key is NOT_HOLDER and the holder hears nothing", async () => {
    const resource = await stack.resource("revoke-lockid");
    const holderClient = stack.client({ url: stack.url });
    const lock = await holderClient.acquire(resource, "k");
    const heard: RevokeRequest[] = [];
    lock.onRevokeRequested((request) => heard.push(request));
    const error = await rejection(
      viaB.lock.requestRevoke.mutate({
        resource,
        businessKey: "k",
        lockId: "A".repeat(22),
        reason: "wrong grant",
      }),
    );
    expect(error.data?.wardenCode).toBe("NOT_HOLDER");
    expect(error.data?.details).toMatchObject({ reason: "other-holder" });
    expect(lock.revokeSignal.aborted).toBe(false);
    expect(heard).toEqual([]);
    await lock.release();
  });

  test("a key without a lease is NOT_HOLDER, nothing audited", async () => {
    const resource = await stack.resource("revoke-free");
    const error = await rejection(
      viaB.lock.requestRevoke.mutate({ resource, businessKey: "free", reason: "just asking" }),
    );
    expect(error.data?.wardenCode).toBe("NOT_HOLDER");
    expect(error.data?.details).toMatchObject({ reason: "expired" });
    // A request that was audited shows up within the flush interval; give it ten of them.
    await delay(500);
    expect(await auditedRequests(resource, "free")).toEqual([]);
  });

  test("another tenant's resource and key answer exactly like an unknown resource", async () => {
    const resource = await stack.resource("revoke-foreign");
    const holderClient = stack.client({ url: stack.url });
    const lock = await holderClient.acquire(resource, "k");
    const heard: RevokeRequest[] = [];
    lock.onRevokeRequested((request) => heard.push(request));

    const prisma = stack.server().services.prisma;
    const tenantId = `sdk-other-${uid()}`;
    const apiKey = `wdn_${randomBytes(32).toString("base64url")}`;
    await prisma.tenant.create({ data: { id: tenantId, name: tenantId, requestsPerSecond: 100 } });
    await prisma.apiKey.create({
      data: {
        id: randomBytes(12).toString("hex"),
        tenantId,
        name: "other tenant",
        prefix: apiKey.slice(0, 12),
        hash: createHash("sha256").update(apiKey, "utf8").digest("hex"),
        scopes: "lock,admin",
      },
    });
    const foreign = trpcClient(urlB, apiKey);
    const theirs = await rejection(
      foreign.lock.requestRevoke.mutate({ resource, businessKey: "k", reason: "not mine" }),
    );
    const missing = `revoke-foreign:${uid()}`;
    const unknown = await rejection(
      foreign.lock.requestRevoke.mutate({ resource: missing, businessKey: "k", reason: "none" }),
    );
    expect(theirs.data?.wardenCode).toBe("UNKNOWN_RESOURCE");
    expect(unknown.data?.wardenCode).toBe("UNKNOWN_RESOURCE");
    expect(theirs.data?.httpStatus).toBe(unknown.data?.httpStatus);
    expect(theirs.message.replace(resource, "<name>")).toBe(
      unknown.message.replace(missing, "<name>"),
    );
    await delay(500);
    expect(heard).toEqual([]);
    expect(lock.revokeSignal.aborted).toBe(false);
    expect(await auditedRequests(resource, "k")).toEqual([]);
    await lock.release();
  });
});
