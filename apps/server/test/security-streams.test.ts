import type { IncomingMessage } from "node:http";
import { createTRPCClient, createWSClient, wsLink } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { metricsStatus } from "../src/http/metrics-access.js";
import { startHttpServer, type HttpServerHandle } from "../src/http/server.js";
import type { AppRouter } from "../src/routers/_app.js";
import { startHarness, type Harness } from "./support/harness.js";
import { serveHarness } from "./support/lock-client.js";

// Issue 18, findings 2, 8 (/metrics) and 9 (caps): revocation and logout end streams and
// sockets, streams are capped, /metrics is not open to anyone who can reach the port.

const NodeWebSocket = WebSocket as unknown as typeof globalThis.WebSocket;

let h: Harness;
let http: HttpServerHandle;

beforeAll(async () => {
  h = await startHarness({ consoleOrigins: ["http://console.test"] });
  http = await serveHarness(h, { shutdownGraceMs: 1_000 });
});
afterAll(async () => {
  await http?.close();
  await h?.close();
});

/** Opens live.events over SSE; `ended` resolves with the ms the stream stayed open. */
async function openSse(headers: Record<string, string>) {
  const response = await fetch(`${http.url}/trpc/live.events?input=${encodeURIComponent("{}")}`, {
    headers: { accept: "text/event-stream", ...headers },
  });
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let text = "";
  // The first event (the current tier) proves the stream is open.
  while (!text.includes('"kind":"tier"')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended early: ${text}`);
    text += new TextDecoder().decode(value);
  }
  const ended = (async () => {
    for (;;) {
      const { done } = await reader.read();
      if (done) return Date.now();
    }
  })().catch(() => Date.now());
  return { ended, cancel: () => reader.cancel().catch(() => undefined) };
}

async function endsWithin<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still open after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe("revocation ends streams", () => {
  it("logout ends the session's SSE stream at once", async () => {
    const viewer = await h.operator("viewer");
    const cookie = `warden_session=${viewer.sessionToken}`;
    const stream = await openSse({ cookie });
    const logout = await fetch(`${http.url}/trpc/auth.logout`, {
      method: "POST",
      headers: { cookie, origin: "http://console.test", "content-type": "application/json" },
      body: "{}",
    });
    expect(logout.status).toBe(200);
    await endsWithin(stream.ended, 1_000);
  });

  it("revoking a key elsewhere (the database only) ends its SSE stream within a second", async () => {
    const tenant = await h.tenant();
    const stream = await openSse({ authorization: `Bearer ${tenant.key}` });
    // As the CLI or another instance would: no call reaches this instance's ApiKeyAuth.
    await h.prisma.apiKey.update({ where: { id: tenant.keyId }, data: { revokedAt: new Date() } });
    await endsWithin(stream.ended, 1_500);
  });

  it("revoking a key ends its WebSocket subscription and closes the socket", async () => {
    const tenant = await h.tenant();
    let closed = false;
    const ws = createWSClient({
      url: `${http.url.replace("http", "ws")}/trpc`,
      connectionParams: { apiKey: tenant.key, clientId: "revoked-ws" },
      WebSocket: NodeWebSocket,
      retryDelayMs: () => 60_000,
      onClose: () => {
        closed = true;
      },
    });
    const client = createTRPCClient<AppRouter>({ links: [wsLink({ client: ws })] });
    try {
      let received = 0;
      const done = new Promise<void>((resolve) => {
        client.live.events.subscribe(
          {},
          {
            onData: () => (received += 1),
            onComplete: () => resolve(),
            onError: () => resolve(),
          },
        );
      });
      while (received === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const admin = await h.operator("admin");
      await admin.caller().tenant.revokeApiKey({ id: tenant.keyId });
      await endsWithin(done, 1_000);
      for (let i = 0; i < 50 && !closed; i += 1) await new Promise((r) => setTimeout(r, 20));
      expect(closed).toBe(true);
    } finally {
      await ws.close();
    }
  });
});

describe("revocation ends the SDK's lock-protocol socket", () => {
  it("closes it with 4401 once the hello's key is revoked", async () => {
    const tenant = await h.tenant();
    const ws = new WebSocket(`${http.url.replace("http", "ws")}/trpc`, "warden-lock.1");
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    ws.send(JSON.stringify({ hello: { apiKey: tenant.key, clientId: "lock-protocol" } }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const admin = await h.operator("admin");
    await admin.caller().tenant.revokeApiKey({ id: tenant.keyId });
    expect(await endsWithin(closed, 1_000)).toBe(4401);
  });
});

describe("caps", () => {
  it("refuses a subscription past the per-socket cap (8)", async () => {
    const tenant = await h.tenant();
    const ws = createWSClient({
      url: `${http.url.replace("http", "ws")}/trpc`,
      connectionParams: { apiKey: tenant.key, clientId: "many-subs" },
      WebSocket: NodeWebSocket,
    });
    const client = createTRPCClient<AppRouter>({ links: [wsLink({ client: ws })] });
    try {
      const errors: string[] = [];
      let started = 0;
      const subs = Array.from({ length: 9 }, () =>
        client.live.events.subscribe(
          {},
          {
            onStarted: () => (started += 1),
            onError: (error) => errors.push(error.data?.code ?? error.message),
          },
        ),
      );
      for (let i = 0; i < 100 && started + errors.length < 9; i += 1)
        await new Promise((r) => setTimeout(r, 20));
      expect(errors).toEqual(["TOO_MANY_REQUESTS"]);
      for (const sub of subs) sub.unsubscribe();
    } finally {
      await ws.close();
    }
  });

  it("closes WebSockets past the per-credential cap, on both WebSocket protocols", async () => {
    const server = await startHttpServer(
      { ...h.services, config: { ...h.services.config, maxSocketsPerCredential: 2 } },
      { host: "127.0.0.1", port: 0, maxBodyBytes: 64 * 1024, shutdownGraceMs: 100 },
    );
    const tenant = await h.tenant();
    const sockets: WebSocket[] = [];
    try {
      const openLock = async () => {
        const ws = new WebSocket(`${server.url.replace("http", "ws")}/trpc`, "warden-lock.1");
        sockets.push(ws);
        await new Promise<void>((resolve, reject) => {
          ws.once("open", () => resolve());
          ws.once("error", reject);
        });
        const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
        ws.send(JSON.stringify({ hello: { apiKey: tenant.key, clientId: `c-${sockets.length}` } }));
        return closed;
      };
      const first = openLock();
      const second = openLock();
      const third = await openLock();
      expect(third).toBe(4429);
      // The first two stay open.
      const early = await Promise.race([
        first,
        second,
        new Promise((resolve) => setTimeout(() => resolve("open"), 200)),
      ]);
      expect(early).toBe("open");
      // tRPC's WebSocket with the same key: its context is refused, the socket closed.
      const trpc = new WebSocket(`${server.url.replace("http", "ws")}/trpc?connectionParams=1`);
      sockets.push(trpc);
      const trpcClosed = new Promise<number>((resolve) =>
        trpc.once("close", (code) => resolve(code)),
      );
      await new Promise<void>((resolve) => trpc.once("open", () => resolve()));
      trpc.send(
        JSON.stringify({
          method: "connectionParams",
          data: { apiKey: tenant.key, clientId: "trpc" },
        }),
      );
      trpc.send(JSON.stringify({ id: 1, method: "query", params: { path: "tier.state" } }));
      await endsWithin(trpcClosed, 1_000);
      // The same socket with a key under its cap stays open.
      const fresh = await h.tenant();
      const ok = new WebSocket(`${server.url.replace("http", "ws")}/trpc?connectionParams=1`);
      sockets.push(ok);
      let okClosed = false;
      ok.once("close", () => (okClosed = true));
      await new Promise<void>((resolve) => ok.once("open", () => resolve()));
      ok.send(
        JSON.stringify({ method: "connectionParams", data: { apiKey: fresh.key, clientId: "ok" } }),
      );
      ok.send(JSON.stringify({ id: 1, method: "query", params: { path: "tier.state" } }));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(okClosed).toBe(false);
    } finally {
      for (const ws of sockets) ws.terminate();
      await server.close();
    }
  });

  it("refuses an SSE stream past the per-credential cap (16)", async () => {
    const tenant = await h.tenant();
    const streams = [];
    for (let i = 0; i < 16; i += 1)
      streams.push(await openSse({ authorization: `Bearer ${tenant.key}` }));
    const over = await fetch(`${http.url}/trpc/live.events?input=${encodeURIComponent("{}")}`, {
      headers: { accept: "text/event-stream", authorization: `Bearer ${tenant.key}` },
    });
    const text = await over.text();
    expect(text).toContain("TOO_MANY_REQUESTS");
    for (const stream of streams) await stream.cancel();
  });
});

describe("/metrics", () => {
  const req = (remoteAddress: string, headers: Record<string, string> = {}) =>
    ({ socket: { remoteAddress }, headers }) as unknown as IncomingMessage;

  it("with nothing configured answers local peers only, not what a trusted proxy forwards", () => {
    expect(metricsStatus(req("127.0.0.1"), {})).toBe(200);
    expect(metricsStatus(req("10.1.2.3"), {})).toBe(403);
    const proxied = req("127.0.0.1", { "x-forwarded-for": "203.0.113.9" });
    expect(metricsStatus(proxied, { trustedProxies: ["127.0.0.1"] })).toBe(403);
    expect(metricsStatus(req("127.0.0.1"), { trustedProxies: ["127.0.0.1"] })).toBe(200);
  });

  it("needs the bearer token when one is set, even from a local peer", async () => {
    const token = "metrics-token-0123456789";
    const server = await startHttpServer(
      { ...h.services, config: { ...h.services.config, metricsToken: token } },
      { host: "127.0.0.1", port: 0, maxBodyBytes: 1024, shutdownGraceMs: 100 },
    );
    try {
      expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
      const wrong = await fetch(`${server.url}/metrics`, {
        headers: { authorization: "Bearer metrics-token-0123456780" },
      });
      expect(wrong.status).toBe(401);
      const ok = await fetch(`${server.url}/metrics`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain("warden_tier");
    } finally {
      await server.close();
    }
  });

  it("moves to its own listener when WARDEN_METRICS_LISTEN is set", async () => {
    const server = await startHttpServer(
      {
        ...h.services,
        config: { ...h.services.config, metricsListen: { host: "127.0.0.1", port: 0 } },
      },
      { host: "127.0.0.1", port: 0, maxBodyBytes: 1024, shutdownGraceMs: 100 },
    );
    try {
      expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
      const own = await fetch(server.metricsUrl!);
      expect(own.status).toBe(200);
      expect(await own.text()).toContain("warden_tier");
      expect((await fetch(server.metricsUrl!.replace("/metrics", "/trpc/tier.state"))).status).toBe(
        404,
      );
    } finally {
      await server.close();
    }
  });
});
