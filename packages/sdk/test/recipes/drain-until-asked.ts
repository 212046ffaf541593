import type { RevokeRequest, Warden } from "@warden/sdk";

/**
 * Works through `items` under the lock of one queue. When someone asks for the lock (an
 * operator's "Request release", or another caller's `lock.requestRevoke`), it stops at the
 * next item boundary and releases, instead of being force-released mid-item.
 */
export async function drainUntilAsked(
  warden: Warden,
  queue: string,
  items: readonly string[],
  handle: (item: string, fence: string | null, signal: AbortSignal) => Promise<void>,
): Promise<{ done: number; askedBy: RevokeRequest | null }> {
  await using lock = await warden.acquire("queue:drain", queue);
  let done = 0;
  for (const item of items) {
    // Asked to let go: a safe point, so stop here (`await using` releases).
    if (lock.revokeSignal.aborted) break;
    await handle(item, lock.fence, lock.signal);
    done += 1;
  }
  const askedBy = lock.revokeSignal.aborted ? (lock.revokeSignal.reason as RevokeRequest) : null;
  return { done, askedBy };
}
