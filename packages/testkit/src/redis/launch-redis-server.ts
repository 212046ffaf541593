import { freePort } from "../net/free-port.js";
import { withFreePort } from "../net/with-free-port.js";
import { makeTempDir } from "../process/temp-dir.js";
import type { RedisRestartOptions } from "../types.js";
import { RedisServer, type RedisServerSpec } from "./redis-server.js";

/** Everything needed to bring up one redis-server on a port of its own. */
export interface RedisLaunchPlan {
  readonly label: string;
  /** @defaultValue {@link freePort} */
  readonly pickPort?: () => Promise<number>;
  readonly args: (port: number, dir: string, opts: RedisRestartOptions) => string[];
  /** Writes files the server needs before its first start (a sentinel's config). */
  readonly prepare?: (port: number, dir: string) => Promise<void>;
  readonly restartDefaults?: RedisServerSpec["restartDefaults"];
  readonly isReady?: RedisServerSpec["isReady"];
  /** Options of the first launch, e.g. the master to replicate from. */
  readonly initial?: RedisRestartOptions;
}

/**
 * Starts a redis-server in a fresh temp dir and resolves once it is ready. A port taken
 * by another process meanwhile is retried on a new one; any other failure cleans up
 * and throws with the server's log tail.
 */
export function launchRedisServer(plan: RedisLaunchPlan): Promise<RedisServer> {
  return withFreePort(plan.pickPort ?? freePort, async (port) => {
    const dir = await makeTempDir(plan.label.replaceAll(" ", "-"));
    const server = new RedisServer({
      label: plan.label,
      port,
      dir,
      args: (opts) => plan.args(port, dir, opts),
      restartDefaults: plan.restartDefaults,
      isReady: plan.isReady,
    });
    try {
      await plan.prepare?.(port, dir);
      await server.launch(plan.initial);
      return server;
    } catch (error) {
      await server.stop();
      throw error;
    }
  });
}

/**
 * Launches several servers in parallel. Every server that came up is pushed to
 * `started` even when another failed, so the caller can stop them all before rethrowing.
 */
export async function launchRedisServers(
  plans: readonly RedisLaunchPlan[],
  started: RedisServer[],
): Promise<RedisServer[]> {
  const results = await Promise.allSettled(plans.map(launchRedisServer));
  const servers: RedisServer[] = [];
  for (const result of results) {
    if (result.status === "fulfilled") servers.push(result.value);
  }
  started.push(...servers);
  const failure = results.find((result) => result.status === "rejected");
  if (failure) throw failure.reason;
  return servers;
}
