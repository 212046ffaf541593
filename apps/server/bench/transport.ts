// `pnpm --filter @warden/server exec tsx bench/transport.ts`: lock.acquire + lock.release
// round trips over tRPC HTTP (one request per call, keep-alive) and over one tRPC
// WebSocket, against a real server on real Redis and MariaDB (testkit). Bounded: a fixed
// number of cycles per run, loopback only. Numbers go to docs/decisions/0010.
import { performance } from "node:perf_hooks";
import { createTRPCClient, createWSClient, httpLink, wsLink } from "@trpc/client";
import WebSocket from "ws";
import { startHttpServer } from "../src/http/server.js";
import type { AppRouter } from "../src/routers/_app.js";
import { registerResource, startHarness } from "../test/support/harness.js";

const CYCLES = Number(process.argv[2] ?? 2_000);
const CONCURRENCY = [1, 16];

type Client = ReturnType<typeof createTRPCClient<AppRouter>>;

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

async function run(label: string, client: Client, resource: string, concurrency: number) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (next < CYCLES) {
        const i = next++;
        const businessKey = `k${worker}-${i}`;
        const t0 = performance.now();
        const grant = await client.lock.acquire.mutate({ resource, businessKey, ownerId: "bench" });
        if (!grant.granted) throw new Error("refused");
        await client.lock.release.mutate({
          resource,
          businessKey,
          lockId: grant.lockId,
          tier: grant.tier,
        });
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(
    `${label.padEnd(10)} c=${String(concurrency).padStart(2)}  ${(CYCLES / seconds).toFixed(0).padStart(6)} cycles/s  ` +
      `p50 ${percentile(latencies, 0.5).toFixed(2)} ms  p99 ${percentile(latencies, 0.99).toFixed(2)} ms`,
  );
}

const h = await startHarness();
const http = await startHttpServer(h.services, {
  host: "127.0.0.1",
  port: 0,
  maxBodyBytes: 65_536,
  shutdownGraceMs: 1_000,
});
try {
  const tenant = await h.tenant("bench", 1_000_000);
  const resource = await registerResource(tenant);
  const headers = { authorization: `Bearer ${tenant.key}`, "x-warden-client-id": "bench" };
  const overHttp = createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${http.url}/trpc`, headers })],
  });
  const ws = createWSClient({
    url: `${http.url.replace("http", "ws")}/trpc`,
    connectionParams: { apiKey: tenant.key, clientId: "bench-ws" },
    WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
  });
  const overWs = createTRPCClient<AppRouter>({ links: [wsLink({ client: ws })] });
  for (const concurrency of CONCURRENCY) {
    await run("warm-up", overWs, resource, concurrency);
    await run("http", overHttp, resource, concurrency);
    await run("websocket", overWs, resource, concurrency);
  }
  await ws.close();
} finally {
  await http.close();
  await h.close();
}
