import { Redis } from "ioredis";
import { TESTKIT_DEFAULTS } from "../defaults.js";
import type { HostPort } from "../types.js";

/**
 * Runs `use` on a short-lived connection that never retries or queues, so a probe of a
 * dead or paused server fails within `timeoutMs` instead of hanging.
 */
export async function withRedis<T>(
  address: HostPort,
  use: (client: Redis) => Promise<T>,
  timeoutMs: number = TESTKIT_DEFAULTS.probeTimeoutMs,
): Promise<T> {
  const client = new Redis({
    host: address.host,
    port: address.port,
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
    enableReadyCheck: false,
  });
  // Failures reach the caller through the awaited command; an unheard "error" event
  // would crash the process instead.
  client.on("error", () => undefined);
  try {
    await client.connect();
    return await use(client);
  } finally {
    client.disconnect();
  }
}
