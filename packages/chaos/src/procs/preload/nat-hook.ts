/**
 * Preloaded (`node --import`) into the Warden servers of a chaos run: rewrites outgoing
 * TCP connections by the address map in `WARDEN_CHAOS_NAT` (JSON `{"127.0.0.1:6380":
 * "127.0.0.1:41234"}`), so that the server's Redis (sentinels and every data node a
 * sentinel announces) and database connections pass through the fault proxies.
 *
 * Why a preload: the server takes sentinel addresses from its environment, but the master
 * address comes from the sentinels, and the server exposes no ioredis `natMap` option to
 * route it. A server option (WARDEN_REDIS_NAT_MAP) would make this unnecessary.
 */
import net from "node:net";
import { syncBuiltinESMExports } from "node:module";

type Address = { host: string; port: number };

function parseMap(text: string | undefined): Map<string, Address> {
  const map = new Map<string, Address>();
  if (!text) return map;
  for (const [from, to] of Object.entries(JSON.parse(text) as Record<string, string>)) {
    const cut = to.lastIndexOf(":");
    map.set(from, { host: to.slice(0, cut), port: Number(to.slice(cut + 1)) });
  }
  return map;
}

const nat = parseMap(process.env.WARDEN_CHAOS_NAT);

function translate(host: string | undefined, port: unknown): Address | undefined {
  const h = host === undefined || host === "localhost" ? "127.0.0.1" : host;
  return nat.get(`${h}:${String(port)}`);
}

/** Rewrites the arguments of `net.connect` / `net.createConnection` in all their forms. */
function rewrite(args: unknown[]): unknown[] {
  const [first, second, ...rest] = args;
  if (first !== null && typeof first === "object" && "port" in first) {
    const options = first as { host?: string; port: unknown };
    const to = translate(options.host, options.port);
    return to ? [{ ...options, host: to.host, port: to.port }, second, ...rest] : args;
  }
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    const to = translate(typeof second === "string" ? second : undefined, first);
    if (!to) return args;
    return typeof second === "string"
      ? [to.port, to.host, ...rest]
      : [to.port, to.host, second, ...rest];
  }
  return args;
}

if (nat.size > 0) {
  const connect = net.connect;
  const createConnection = net.createConnection;
  net.connect = (...args: unknown[]) =>
    (connect as (...a: unknown[]) => net.Socket)(...rewrite(args));
  net.createConnection = (...args: unknown[]) =>
    (createConnection as (...a: unknown[]) => net.Socket)(...rewrite(args));
  syncBuiltinESMExports();
}
