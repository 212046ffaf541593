import {
  createTRPCClient,
  createWSClient,
  httpBatchLink,
  wsLink,
  TRPCClientError,
} from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
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

// Node 20 has no global WebSocket; the SDK passes `ws` the same way.
const NodeWebSocket = WebSocket as unknown as typeof globalThis.WebSocket;

let h: Harness;
let http: HttpServerHandle;
let tenant: TenantHandle;
let resource: string;
const MAX_BODY = 16 * 1024;

beforeAll(async () => {
  h = await startHarness({ consoleOrigins: ["http://console.test"] });
  http = await serveHarness(h, { maxBodyBytes: MAX_BODY });
  tenant = await h.tenant();
  resource = await registerResource(tenant);
});
afterAll(async () => {
  await http?.close();
  await h?.close();
});

function httpClient(headers: Record<string, string>) {
  return createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url: `${http.url}/trpc`, headers })],
  });
}

/** Prometheus text format: comments, or `name{labels} value` samples. */
function parsePrometheus(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("# HELP ") || line.startsWith("# TYPE ")) continue;
    const match =
      /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})?) (-?[0-9.e+-]+|NaN|\+Inf|-Inf)$/.exec(
        line,
      );
    if (!match) throw new Error(`not Prometheus text: ${line}`);
    samples.set(match[1]!, Number(match[2]));
  }
  return samples;
}

describe("plain HTTP endpoints", () => {
  it("answers /healthz and /readyz", async () => {
    expect((await fetch(`${http.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${http.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true, tier: "redis" });
  });

  it("serves /metrics as Prometheus text whose counters match the calls made, by app (the key's name)", async () => {
    const name = await registerResource(tenant);
    const client = httpClient({
      authorization: `Bearer ${tenant.key}`,
      "x-warden-client-id": "metrics-client",
    });
    for (let i = 0; i < 5; i += 1) {
      const grant = await client.lock.acquire.mutate({
        resource: name,
        businessKey: `m${i}`,
        ownerId: "o",
      });
      if (!grant.granted) throw new Error("expected a grant");
      if (i < 3)
        await client.lock.release.mutate({
          resource: name,
          businessKey: `m${i}`,
          lockId: grant.lockId,
          tier: grant.tier,
        });
    }
    const other = httpClient({
      authorization: `Bearer ${tenant.key}`,
      "x-warden-client-id": "other",
    });
    await other.lock.acquire.mutate({ resource: name, businessKey: "m4", ownerId: "o" });
    const response = await fetch(`${http.url}/metrics`);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const samples = parsePrometheus(await response.text());
    expect(
      samples.get(
        `warden_acquire_total{resource="${name}",tier="redis",outcome="granted",app="test"}`,
      ),
    ).toBe(5);
    expect(
      samples.get(
        `warden_acquire_total{resource="${name}",tier="redis",outcome="refused",app="test"}`,
      ),
    ).toBe(1);
    expect(
      samples.get(`warden_release_total{resource="${name}",outcome="released",app="test"}`),
    ).toBe(3);
    expect(samples.get(`warden_live_locks{resource="${name}",kind="mutex"}`)).toBe(2);
    expect(
      samples.get(
        `warden_acquire_duration_seconds_count{resource="${name}",tier="redis",outcome="granted",app="test"}`,
      ),
    ).toBe(5);
    expect(samples.get(`warden_tier{tier="redis"}`)).toBe(1);
    expect(samples.has("warden_process_resident_memory_bytes")).toBe(true);
  });
});

describe("tRPC over HTTP", () => {
  it("answers 401 without a key", async () => {
    const response = await fetch(
      `${http.url}/trpc/resource.list?input=${encodeURIComponent("{}")}`,
    );
    expect(response.status).toBe(401);
  });

  it("refuses an oversize body with 413 and changes nothing", async () => {
    const businessKey = `big-${uid()}`;
    const response = await fetch(`${http.url}/trpc/lock.acquire`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tenant.key}`,
        "x-warden-client-id": "c",
        "content-type": "application/json",
      },
      body: JSON.stringify({ resource, businessKey, ownerId: "o", padding: "x".repeat(MAX_BODY) }),
    });
    expect(response.status).toBe(413);
    expect((await tenant.caller().lock.inspect({ resource, businessKey })).lease).toBeNull();
  });

  it("sets an httpOnly SameSite=Strict session cookie and refuses cross-origin cookie mutations", async () => {
    const operator = await h.operator("operator");
    // A real login over HTTP: read the cookie as a browser would keep it.
    const username = operator.username;
    const login = await fetch(`${http.url}/trpc/auth.login`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://console.test" },
      body: JSON.stringify({ username, password: "correct horse battery staple" }),
    });
    expect(login.status).toBe(200);
    const setCookie = login.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(
      /^warden_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+/,
    );
    const cookie = setCookie.split(";")[0]!;
    const body = JSON.stringify({ tier: "mysql", reason: "csrf attempt" });
    const forged = await fetch(`${http.url}/trpc/tier.override`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie, origin: "https://evil.example" },
      body,
    });
    expect(forged.status).toBe(403);
    expect(h.services.locks.tier).toBe("redis");
    const me = await fetch(`${http.url}/trpc/auth.me`, { headers: { cookie } });
    expect(await me.json()).toMatchObject({ result: { data: { kind: "operator", username } } });
  });

  it("streams live events over SSE", async () => {
    const operator = await h.operator("viewer");
    const controller = new AbortController();
    const response = await fetch(
      `${http.url}/trpc/live.events?input=${encodeURIComponent(JSON.stringify({ resource }))}`,
      {
        headers: { cookie: `warden_session=${operator.sessionToken}`, accept: "text/event-stream" },
        signal: controller.signal,
      },
    );
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = "";
    const businessKey = `live-${uid()}`;
    setTimeout(
      () => void tenant.caller().lock.acquire({ resource, businessKey, ownerId: "o" }),
      200,
    );
    const deadline = Date.now() + 5_000;
    while (!text.includes(businessKey) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    expect(text).toContain('"kind":"tier"');
    expect(text).toContain(businessKey);
  });
});

describe("tRPC over WebSocket (the SDK transport)", () => {
  it("acquires, waits for a release and releases over one connection", async () => {
    const ws = createWSClient({
      url: `${http.url.replace("http", "ws")}/trpc`,
      connectionParams: { apiKey: tenant.key, clientId: "ws-client" },
      WebSocket: NodeWebSocket,
    });
    const client = createTRPCClient<AppRouter>({ links: [wsLink({ client: ws })] });
    try {
      const businessKey = `ws-${uid()}`;
      const first = await client.lock.acquire.mutate({ resource, businessKey, ownerId: "a" });
      if (!first.granted) throw new Error("expected a grant");
      expect(first.currentTier).toBe("redis");
      const waiting = client.lock.acquire.mutate({
        resource,
        businessKey,
        ownerId: "b",
        waitMs: 5_000,
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await client.lock.release.mutate({
        resource,
        businessKey,
        lockId: first.lockId,
        tier: first.tier,
      });
      const second = await waiting;
      expect(second).toMatchObject({ granted: true });
      const wrong = await client.lock.release
        .mutate({ resource, businessKey, lockId: first.lockId, tier: "redis" })
        .catch((e: unknown) => e);
      expect(wrong).toBeInstanceOf(TRPCClientError);
      expect((wrong as TRPCClientError<AppRouter>).data).toMatchObject({
        code: "PRECONDITION_FAILED",
        wardenCode: "NOT_HOLDER",
      });
    } finally {
      await ws.close();
    }
  });

  it("removes the waiter of a closed connection", async () => {
    const businessKey = `ws-close-${uid()}`;
    await tenant.caller().lock.acquire({ resource, businessKey, ownerId: "holder" });
    const ws = createWSClient({
      url: `${http.url.replace("http", "ws")}/trpc`,
      connectionParams: { apiKey: tenant.key, clientId: "closing" },
      WebSocket: NodeWebSocket,
    });
    const client = createTRPCClient<AppRouter>({ links: [wsLink({ client: ws })] });
    void client.lock.acquire
      .mutate({ resource, businessKey, ownerId: "w", waitMs: 20_000 })
      .catch(() => undefined);
    const until = Date.now() + 3_000;
    while (h.services.waiters.list(resource, businessKey).length === 0 && Date.now() < until)
      await new Promise((r) => setTimeout(r, 20));
    expect(h.services.waiters.list(resource, businessKey)).toHaveLength(1);
    // The client's close waits for pending calls; the socket is what matters here.
    ws.connection?.ws?.close();
    const gone = Date.now() + 3_000;
    while (h.services.waiters.list(resource, businessKey).length > 0 && Date.now() < gone)
      await new Promise((r) => setTimeout(r, 20));
    expect(h.services.waiters.list(resource, businessKey)).toHaveLength(0);
    void ws.close();
  });

  it("refuses a WebSocket upgrade from a foreign browser origin", async () => {
    const socket = new WebSocket(`${http.url.replace("http", "ws")}/trpc`, {
      headers: { origin: "https://evil.example" },
    });
    const outcome = await new Promise<string>((resolve) => {
      socket.on("open", () => resolve("open"));
      socket.on("error", () => resolve("refused"));
      socket.on("unexpected-response", (_req, res) => resolve(`status ${res.statusCode}`));
    });
    expect(outcome).not.toBe("open");
    socket.terminate();
  });
});
