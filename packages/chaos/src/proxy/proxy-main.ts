/**
 * The fault proxies of a chaos run, in a process of their own so that forwarding every
 * byte between the servers and Redis or MariaDB does not slow down the run's event loop
 * (the nemesis resumes paused processes within milliseconds). Routes come from
 * `CHAOS_PROXY_ROUTES`; modes and counters travel over IPC.
 */
import { FaultProxy } from "./fault-proxy.js";
import { emptyStats, type ProxyStats } from "./proxy-mode.js";
import type { ProxyReply, ProxyRequest, ProxyRoute } from "./proxy-protocol.js";

const routes = JSON.parse(process.env.CHAOS_PROXY_ROUTES ?? "[]") as ProxyRoute[];
const proxies = routes.map((route) => ({
  route,
  proxy: new FaultProxy({ host: route.host, port: route.port }),
}));

function reply(message: ProxyReply): void {
  process.send?.(message);
}

function inGroup(group: string) {
  return proxies.filter((p) => p.route.group === group).map((p) => p.proxy);
}

function sum(group: string): ProxyStats {
  const total = emptyStats();
  for (const proxy of inGroup(group)) {
    for (const key of Object.keys(total) as (keyof ProxyStats)[]) total[key] += proxy.stats[key];
  }
  return total;
}

async function handle(request: ProxyRequest): Promise<void> {
  try {
    if (request.cmd === "mode")
      await Promise.all(inGroup(request.group).map((proxy) => proxy.setMode(request.mode)));
    reply({ type: "reply", id: request.id, stats: sum(request.group) });
  } catch (error) {
    reply({ type: "failed", id: request.id, message: (error as Error).message });
  }
}

await Promise.all(proxies.map(({ proxy }) => proxy.listen()));
process.on("message", (request: ProxyRequest) => void handle(request));
// The run is over (or dead): nothing left to forward for.
process.on("disconnect", () => process.exit(0));
reply({
  type: "ready",
  ports: Object.fromEntries(proxies.map(({ route, proxy }) => [route.name, proxy.port])),
});
