import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { randomInt } from "node:crypto";
import { registry } from "../process/registry.js";

/** Below this sit well-known services (and the shared Redis/MariaDB on 6379/3306). */
const LOWEST_PORT = 10_000;
/** Redis cluster listens on `port + 10000` for its bus. */
export const CLUSTER_BUS_OFFSET = 10_000;
const ATTEMPTS = 100;
/**
 * Ports at or above {@link LOWEST_PORT} that `fetch` refuses to connect to (the WHATWG fetch
 * "bad port" list; undici throws "bad port"): a test server there cannot be called over HTTP.
 */
const FETCH_BLOCKED_PORTS: ReadonlySet<number> = new Set([10_080]);

/** Whether `fetch` (and so every HTTP client built on it) may connect to `port`. */
export function fetchAllows(port: number): boolean {
  return !FETCH_BLOCKED_PORTS.has(port);
}

/**
 * First port of the kernel's ephemeral range (the local ports of outgoing connections).
 * Staying below it means a client's reconnect loop can never occupy the port of a
 * server we killed and are about to restart there.
 */
function ephemeralLow(): number {
  try {
    const low = Number(
      readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").split(/\s+/)[0],
    );
    return Number.isInteger(low) && low > LOWEST_PORT + 2 * CLUSTER_BUS_OFFSET ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/** Whether nothing listens on 127.0.0.1:`port` (nor on the wildcard address). */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => {
      server.close(() => resolve(true));
    });
  });
}

async function pickPort(span: number, offsets: readonly number[]): Promise<number> {
  const { reservedPorts } = registry();
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = randomInt(LOWEST_PORT, LOWEST_PORT + span);
    const ports = offsets.map((offset) => port + offset);
    if (ports.some((p) => reservedPorts.has(p) || !fetchAllows(p))) continue;
    if (!(await Promise.all(ports.map(isPortFree))).every(Boolean)) continue;
    // Reserved for this process's lifetime so parallel starts never pick it twice.
    for (const p of ports) reservedPorts.add(p);
    return port;
  }
  throw new Error(`no free loopback port found in ${ATTEMPTS} attempts`);
}

/**
 * A TCP port free on 127.0.0.1 right now, between 10000 and the kernel's ephemeral
 * range. Another process can still take it before you bind: retry on EADDRINUSE.
 */
export function freePort(): Promise<number> {
  return pickPort(ephemeralLow() - LOWEST_PORT, [0]);
}

/** A free port whose cluster bus port (`port + 10000`) is free too, both below the ephemeral range. */
export function freeClusterPort(): Promise<number> {
  return pickPort(ephemeralLow() - LOWEST_PORT - CLUSTER_BUS_OFFSET, [0, CLUSTER_BUS_OFFSET]);
}
