import type { Warden } from "@warden/sdk";

/**
 * Calls a fragile partner API with at most the resource's `permits` calls in flight across
 * every instance: each call holds one permit of the "partner:api" semaphore for as long as
 * it runs (renewed by the watchdog, however long that is) and gives it back at once after.
 */
export async function callPartner<T>(
  warden: Warden,
  partner: string,
  call: (signal: AbortSignal, fence: string | null) => Promise<T>,
): Promise<T> {
  // Waits up to 10 s for a free permit (LockTimeoutError otherwise).
  await using permit = await warden.semaphore("partner:api", partner).acquire({ waitMs: 10_000 });
  // The signal aborts if the permit may be lost; the fence tells late writers apart.
  return await call(permit.signal, permit.fence);
}
