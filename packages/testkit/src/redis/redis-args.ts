import type { RedisRestartOptions } from "../types.js";

/** The redis-server binary; on PATH in every supported environment. */
export const REDIS_SERVER = "redis-server";

/**
 * Arguments of a data node: loopback only, no persistence (tests own their data and a
 * restart starts empty), diskless replication without delay so a replica's initial
 * sync takes milliseconds instead of the default 5 s, and a SIGTERM that exits at once
 * instead of waiting up to 10 s for a paused replica to catch up.
 */
export function dataNodeArgs(
  port: number,
  dir: string,
  opts: RedisRestartOptions,
  extra: readonly string[] = [],
): string[] {
  // prettier-ignore
  const args = [
    "--port", String(port),
    "--bind", "127.0.0.1",
    "--dir", dir,
    "--daemonize", "no",
    "--save", "",
    "--appendonly", "no",
    "--repl-diskless-sync", "yes",
    "--repl-diskless-sync-delay", "0",
    "--shutdown-on-sigterm", "now",
    "--replica-announce-ip", "127.0.0.1",
  ];
  if (opts.replicaOf) args.push("--replicaof", opts.replicaOf.host, String(opts.replicaOf.port));
  return [...args, ...extra];
}
