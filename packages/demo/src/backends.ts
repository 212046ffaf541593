import { startMariaDb, startRedis } from "@warden/testkit";
import type { DemoEnv } from "./env.js";

/** Where Redis and MariaDB are, and how to stop what this process started. */
export interface Backends {
  readonly redisUrl: string;
  readonly databaseUrl: string;
  readonly started: string[];
  stop(): Promise<void>;
}

/**
 * Uses REDIS_URL / DATABASE_URL when given; otherwise starts a private redis-server and
 * mariadbd from the system binaries on free loopback ports (their data lives under
 * `.warden/run`, git-ignored, and goes when they stop).
 */
export async function startBackends(env: DemoEnv): Promise<Backends> {
  const stops: Array<() => Promise<void>> = [];
  const started: string[] = [];
  try {
    let redisUrl = env.redisUrl;
    if (!redisUrl) {
      const redis = await startRedis();
      stops.push(() => redis.stop());
      started.push(`redis-server (pid ${redis.pid}) on ${redis.url}`);
      redisUrl = redis.url;
    }
    let databaseUrl = env.databaseUrl;
    if (!databaseUrl) {
      const mariadb = await startMariaDb();
      stops.push(() => mariadb.stop());
      started.push(`mariadbd (pid ${mariadb.pid}) on ${mariadb.url}`);
      databaseUrl = mariadb.url;
    }
    return { redisUrl, databaseUrl, started, stop: () => stopAll(stops) };
  } catch (error) {
    await stopAll(stops);
    throw error;
  }
}

async function stopAll(stops: Array<() => Promise<void>>): Promise<void> {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
}
