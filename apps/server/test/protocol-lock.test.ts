import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpServerHandle } from "../src/http/server.js";
import {
  registerResource,
  startHarness,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";
import { connectLockClient, serveHarness, type LockEntry } from "./support/lock-client.js";

let h: Harness;
let http: HttpServerHandle;
let tenant: TenantHandle;

beforeAll(async () => {
  h = await startHarness();
  http = await serveHarness(h);
  tenant = await h.tenant();
});
afterAll(async () => {
  await http?.close();
  await h?.close();
});

/** A bare client of the batched lock protocol. */
function connect(apiKey: string, clientId = "proto-client", url = http.url) {
  return connectLockClient(url, apiKey, clientId);
}

describe("the batched lock protocol", () => {
  it("renews many leases in one command and answers each on its own", async () => {
    const resource = await registerResource(tenant);
    const client = await connect(tenant.key);
    const grants = await client.send(
      ["acquire", { resource, businessKey: "a", ownerId: "o" }],
      ["acquire", { resource, businessKey: "b", ownerId: "o" }],
    );
    const [a, b] = grants.map((entry) => entry[2] as { lockId: string; tier: string });
    const [renewed] = await client.send([
      "renew",
      {
        items: [
          { resource, businessKey: "a", lockId: a!.lockId, tier: a!.tier, leaseMs: 20_000 },
          // Not this key's grant: refused alone.
          { resource, businessKey: "b", lockId: a!.lockId, tier: a!.tier },
          { resource, businessKey: "b", lockId: b!.lockId, tier: b!.tier },
        ],
      },
    ]);
    expect(renewed![1]).toBe(0);
    const { results, currentTier } = renewed![2] as {
      results: { ttlMs?: number; error?: { data: { wardenCode: string } } }[];
      currentTier: string;
    };
    expect(currentTier).toBe("redis");
    expect(results[0]!.ttlMs).toBeGreaterThan(15_000);
    expect(results[1]!.error?.data.wardenCode).toBe("NOT_HOLDER");
    expect(results[2]!.ttlMs).toBeGreaterThan(0);
    const [inspected] = await client.send(["inspect", { resource, businessKey: "b" }]);
    expect(inspected![2]).toMatchObject({ lease: { lockId: b!.lockId } });
    client.ws.close();
  });

  it("a refused try that asks to watch is told when the key is freed", async () => {
    const resource = await registerResource(tenant);
    const holder = await connect(tenant.key, "holder");
    const watcher = await connect(tenant.key, "watcher");
    const [grant] = await holder.send(["acquire", { resource, businessKey: "k", ownerId: "h" }]);
    const { lockId, tier } = grant![2] as { lockId: string; tier: string };
    const [refused] = await watcher.send([
      "acquire",
      { resource, businessKey: "k", ownerId: "w", watch: true },
    ]);
    expect(refused![2]).toMatchObject({ granted: false, watch: true });
    expect(watcher.entries.some((entry) => entry[1] === "released")).toBe(false);
    await holder.send(["release", { resource, businessKey: "k", lockId, tier }]);
    const deadline = Date.now() + 5_000;
    while (!watcher.entries.some((entry) => entry[1] === "released") && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(watcher.entries.find((entry) => entry[1] === "released")?.[2]).toEqual([
      [resource, "k"],
    ]);
    holder.ws.close();
    watcher.ws.close();
  });

  it("a fair resource's refusal is never watched", async () => {
    const resource = await registerResource(tenant, { fair: true });
    const client = await connect(tenant.key);
    await client.send(["acquire", { resource, businessKey: "k", ownerId: "h" }]);
    const [refused] = await client.send([
      "acquire",
      { resource, businessKey: "k", ownerId: "w", watch: true },
    ]);
    expect(refused![2]).toMatchObject({ granted: false, watch: false });
    client.ws.close();
  });

  it("each command spends the tenant's request quota; refused ones change nothing", async () => {
    const slow = await h.tenant(undefined, 3);
    const resource = await registerResource(slow);
    const client = await connect(slow.key);
    const keys = Array.from({ length: 8 }, (_, i) => `q${i}`);
    const answers = await client.send(
      ...keys.map((businessKey): [string, unknown] => [
        "acquire",
        { resource, businessKey, ownerId: "o" },
      ]),
    );
    const refused = keys.filter((_, i) => answers[i]![1] === 1);
    // A burst of at most 3 tokens: most of the frame is refused, one by one.
    expect(refused.length).toBeGreaterThanOrEqual(5);
    for (const [i, key] of keys.entries()) {
      if (answers[i]![1] === 0) continue;
      expect(answers[i]![2]).toMatchObject({ data: { wardenCode: "QUOTA_EXCEEDED" } });
      expect(await h.services.locks.inspect({ resource, businessKey: key })).toBeNull();
    }
    client.ws.close();
  });

  it("a frame that breaks the protocol closes the socket", async () => {
    const client = await connect(tenant.key);
    const closed = new Promise<number>((resolve) => client.ws.once("close", resolve));
    client.ws.send("{not json");
    expect(await closed).toBe(1008);
  });

  it("another tenant's resource behaves exactly like an unknown one", async () => {
    const other = await h.tenant();
    const foreign = await registerResource(other);
    const client = await connect(tenant.key);
    const [theirs, none] = await client.send(
      ["acquire", { resource: foreign, businessKey: "k", ownerId: "o" }],
      ["acquire", { resource: "res:nobody-has-this", businessKey: "k", ownerId: "o" }],
    );
    const strip = (entry: LockEntry) => {
      const error = entry[2] as { message: string; data: Record<string, unknown> };
      return { code: error.data.wardenCode, kind: entry[1] };
    };
    expect(strip(theirs!)).toEqual(strip(none!));
    expect(strip(theirs!).code).toBe("UNKNOWN_RESOURCE");
    client.ws.close();
  });

  // Last in the file: closing an HTTP server withdraws every wait of the shared services.
  it("a shutdown tells each client to move on before it withdraws their waits, then closes the sockets", async () => {
    const own = await serveHarness(h);
    const resource = await registerResource(tenant);
    const holder = await connect(tenant.key, "drain-holder", own.url);
    const waiter = await connect(tenant.key, "drain-waiter", own.url);
    const [grant] = await holder.send(["acquire", { resource, businessKey: "k", ownerId: "h" }]);
    expect(grant![2]).toMatchObject({ granted: true });
    waiter.ws.send(
      JSON.stringify([
        [7, "acquire", { resource, businessKey: "k", ownerId: "w", waitMs: 20_000 }],
      ]),
    );
    const listed = Date.now() + 10_000;
    while (h.services.waiters.list(resource).length === 0 && Date.now() < listed) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(h.services.waiters.list(resource)).toHaveLength(1);
    const closed = new Promise<number>((resolve) => waiter.ws.once("close", resolve));
    await own.close();
    expect(await closed).toBe(1001);
    const draining = waiter.entries.findIndex((entry) => entry[1] === "draining");
    const answer = waiter.entries.findIndex((entry) => entry[0] === 7);
    expect(draining).toBeGreaterThanOrEqual(0);
    expect(waiter.entries[draining]).toEqual([0, "draining", null]);
    // The notice comes first; the withdrawn wait is still answered, definitely.
    expect(answer).toBeGreaterThan(draining);
    expect(waiter.entries[answer]![1]).toBe(1);
    expect((waiter.entries[answer]![2] as { data: { wardenCode: string } }).data.wardenCode).toBe(
      "WAIT_CANCELLED",
    );
    expect(holder.entries.some((entry) => entry[1] === "draining")).toBe(true);
  });
});
