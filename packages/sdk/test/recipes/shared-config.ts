import type { Warden } from "@warden/sdk";

/**
 * Many instances read the EU price list at once; a rewrite waits until the readers are
 * done, and while it waits no new reader starts (the resource's writer preference), so a
 * steady stream of readers cannot starve it. Both grants are renewed while they run.
 */
export async function readPrices<T>(
  warden: Warden,
  read: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  await using lease = await warden.rwLock("config:prices", "eu").read({ waitMs: 10_000 });
  return await read(lease.signal);
}

export async function rewritePrices(
  warden: Warden,
  write: (signal: AbortSignal, fence: string | null) => Promise<void>,
): Promise<void> {
  await using lease = await warden.rwLock("config:prices", "eu").write({ waitMs: 30_000 });
  // A write fence is larger than every fence granted on the key before it: a store that
  // keeps the highest fence it accepted refuses a late writer (see fencedUpdate).
  await write(lease.signal, lease.fence);
}
