import { LockTimeoutError, type Warden } from "@warden/sdk";

/**
 * Settles an order once its lock is free, waiting at most 2 s, and gives up as soon as
 * the incoming request is aborted (the waiter leaves the server's queue at once).
 */
export async function settleWhenFree(
  warden: Warden,
  orderId: string,
  request: AbortSignal,
  settle: (fence: string | null, signal: AbortSignal) => Promise<void>,
): Promise<"settled" | "busy" | "cancelled"> {
  try {
    // The server queues the waiter and wakes it on release (FIFO for fair resources).
    await using lock = await warden.acquire("order:settle", orderId, {
      waitMs: 2_000,
      signal: request,
    });
    await settle(lock.fence, lock.signal);
    return "settled";
  } catch (error) {
    if (error instanceof LockTimeoutError) return "busy";
    if (request.aborted && error === request.reason) return "cancelled";
    throw error;
  }
}
