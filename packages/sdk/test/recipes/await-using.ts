import type { Warden } from "@warden/sdk";

/** Rebuilds one cache entry; the lock is released when the block ends, even by a throw. */
export async function rebuildCacheEntry(
  warden: Warden,
  key: string,
  rebuild: (signal: AbortSignal) => Promise<void>,
): Promise<void> {
  await using lock = await warden.acquire("cache:rebuild", key, { leaseMs: 10_000 });
  await rebuild(lock.signal);
}
