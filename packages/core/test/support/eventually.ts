import { sleep } from "./ids.js";

/**
 * Retries `attempt` until it returns without throwing, for at most `timeoutMs`; rethrows the
 * last error after that. For steps that legitimately fail while a failover settles.
 */
export async function eventually<T>(
  attempt: () => Promise<T>,
  timeoutMs = 15_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(intervalMs);
    }
  }
}
