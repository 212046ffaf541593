// Cooperative revocation on the server (docs/decisions/0176-cooperative-revocation.md): two
// instances sharing Redis and MariaDB over the fleet bus. A bare lock-protocol client on
// instance A (it knows nothing of revoke requests, like an older SDK) receives the request an
// operator made on instance B as a `[0, "revoke", …]` entry, and its lock and commands are
// unaffected. Operators need the operator role, as for force release.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { HttpServerHandle } from "../src/http/server.js";
import { LOCK_SUBPROTOCOL } from "../src/protocol/wire.js";
import { expectCode } from "./support/expect-trpc.js";
import {
  registerResource,
  startHarness,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";
import { serveHarness } from "./support/lock-client.js";

let a: Harness;
let b: Harness;
let httpA: HttpServerHandle;
let tenant: TenantHandle;

beforeAll(async () => {
  a = await startHarness({ fleet: true, releaseBridge: true });
  b = await startHarness({ fleet: true, releaseBridge: true, shareWith: a });
  httpA = await serveHarness(a);
  tenant = await a.tenant();
});
afterAll(async () => {
  await httpA?.close();
  await b?.close();
  await a?.close();
});

type Entry = [number, 0 | 1 | string, unknown];

/** A bare client of the batched lock protocol that records every entry it receives. */
async function connect(apiKey: string, clientId: string) {
  const ws = new WebSocket(`${httpA.url.replace("http", "ws")}/trpc`, LOCK_SUBPROTOCOL);
  const entries: Entry[] = [];
  ws.on("message", (data: Buffer) => {
    for (const entry of JSON.parse(data.toString("utf8")) as Entry[]) entries.push(entry);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  ws.send(JSON.stringify({ hello: { apiKey, clientId } }));
  let nextId = 1;
  return {
    ws,
    entries,
    async send(op: string, input: unknown): Promise<Entry> {
      const id = nextId++;
      ws.send(JSON.stringify([[id, op, input]]));
      return waitFor(() => entries.find((entry) => entry[0] === id));
    },
  };
}

async function waitFor<T>(
  find: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`nothing within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("lock.requestRevoke across instances", () => {
  it("reaches the holder's connection on another instance; the lock stays held", async () => {
    const resource = await registerResource(tenant);
    const client = await connect(tenant.key, "old-sdk");
    const [, ok, grant] = await client.send("acquire", {
      resource,
      businessKey: "k",
      ownerId: "o",
      leaseMs: 20_000,
    });
    expect(ok).toBe(0);
    const { lockId, tier } = grant as { lockId: string; tier: string };

    const operator = await b.operator("operator");
    const reply = await operator.caller().lock.requestRevoke({
      resource,
      businessKey: "k",
      reason: "maintenance window",
    });
    expect(reply).toMatchObject({ requested: true, lockId, holder: { clientId: "old-sdk" } });

    const [, kind, push] = await waitFor(() =>
      client.entries.find((entry) => entry[0] === 0 && entry[1] === "revoke"),
    );
    expect(kind).toBe("revoke");
    expect(push).toMatchObject({
      resource,
      businessKey: "k",
      lockId,
      reason: "maintenance window",
      requestedBy: `operator:${operator.username}`,
    });
    // A client that ignores the entry goes on as before: the lease is untouched.
    const [, extended] = await client.send("extend", { resource, businessKey: "k", lockId, tier });
    expect(extended).toBe(0);
    const inspected = await tenant.caller().lock.inspect({ resource, businessKey: "k" });
    expect(inspected.lease?.lockId).toBe(lockId);

    // Audited once, naming the operator.
    const audited = await waitFor(async () => {
      const found = await a.prisma.lockEvent.findMany({
        where: { type: "revoke-requested", resource },
      });
      return found.length > 0 ? found : undefined;
    });
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({
      lockId,
      actor: `operator:${operator.username}`,
      reason: "maintenance window",
      clientId: "old-sdk",
      tenantId: tenant.id,
    });

    // The audit search finds it by type.
    const found = await tenant.caller().event.search({ type: "revoke-requested", resource });
    expect(found.events.map((event) => event.lockId)).toEqual([lockId]);

    // Another client of the tenant hears nothing.
    const bystander = await connect(tenant.key, "bystander");
    await bystander.send("inspect", { resource, businessKey: "k" });
    await tenant.caller().lock.requestRevoke({ resource, businessKey: "k" });
    await waitFor(() =>
      client.entries.filter((entry) => entry[0] === 0 && entry[1] === "revoke").length === 2
        ? true
        : undefined,
    );
    expect(bystander.entries.some((entry) => entry[1] === "revoke")).toBe(false);
    client.ws.close();
    bystander.ws.close();
  });

  it("needs the operator role from an operator, as force release does", async () => {
    const resource = await registerResource(tenant);
    await tenant.caller({ clientId: "holder" }).lock.acquire({
      resource,
      businessKey: "k",
      ownerId: "o",
    });
    const viewer = await b.operator("viewer");
    await expectCode(
      viewer.caller().lock.requestRevoke({ resource, businessKey: "k", reason: "peek" }),
      "FORBIDDEN",
    );
    const before = await a.prisma.lockEvent.count({
      where: { type: "revoke-requested", resource },
    });
    expect(before).toBe(0);
  });

  it("over HTTP: POST /v1/locks/{resource}/revoke-request, and 409 NOT_HOLDER for a free key", async () => {
    const resource = await registerResource(tenant);
    const client = await connect(tenant.key, "rest-holder");
    const [, , grant] = await client.send("acquire", { resource, businessKey: "k", ownerId: "o" });
    const { lockId } = grant as { lockId: string };
    const post = (body: unknown) =>
      fetch(`${httpA.url}/v1/locks/${encodeURIComponent(resource)}/revoke-request`, {
        method: "POST",
        headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const asked = await post({ businessKey: "k", lockId, reason: "over http" });
    expect(asked.status).toBe(200);
    expect(await asked.json()).toMatchObject({ requested: true, lockId });
    const [, , push] = await waitFor(() =>
      client.entries.find((entry) => entry[0] === 0 && entry[1] === "revoke"),
    );
    expect(push).toMatchObject({ lockId, reason: "over http" });

    const free = await post({ businessKey: "free" });
    expect(free.status).toBe(409);
    expect(await free.json()).toMatchObject({ error: { code: "NOT_HOLDER" } });
    client.ws.close();
  });

  it("refuses bad input typed, with nothing sent", async () => {
    const resource = await registerResource(tenant);
    await expectCode(
      tenant.caller().lock.requestRevoke({ resource, businessKey: "k", reason: "x" }),
      "BAD_REQUEST",
    );
    await expectCode(
      tenant.caller().lock.requestRevoke({ resource, businessKey: "k", lockId: "short" }),
      "BAD_REQUEST",
    );
  });
});
