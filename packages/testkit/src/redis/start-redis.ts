import type { StandaloneRedis } from "../types.js";
import { launchRedisServer } from "./launch-redis-server.js";
import { dataNodeArgs } from "./redis-args.js";

/** Options of {@link startRedis}. */
export interface StartRedisOptions {
  /** Extra redis-server arguments, appended last so they win: `["--maxmemory", "10mb"]`. */
  readonly args?: readonly string[];
}

/**
 * Starts a standalone Redis on a free loopback port with its own temp dir, persistence
 * off, and resolves once it answers PING.
 */
export async function startRedis(opts: StartRedisOptions = {}): Promise<StandaloneRedis> {
  const server = await launchRedisServer({
    label: "redis",
    args: (port, dir, launch) => dataNodeArgs(port, dir, launch, opts.args),
  });
  return Object.assign(server, { stopAll: () => server.stop() });
}
