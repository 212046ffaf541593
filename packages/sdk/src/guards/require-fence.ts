import { LockUnavailableError, parseFence } from "@warden/contract";
import type { FencedHolder } from "./fenced-holder.js";

/**
 * The holder's fence, checked to be canonical. Local-tier locks carry none and are
 * refused (docs/design.md#fail-closed): a write protected only by an in-process lock must not pass
 * a fence check.
 *
 * @throws LockUnavailableError - a local-tier lock.
 * @throws InvalidArgumentError - a malformed fence.
 */
export function requireFence(holder: FencedHolder): string {
  if (holder.fence === null || holder.tier === "local") {
    throw new LockUnavailableError(
      `lock ${holder.lockId} is a local-tier lock without a fence: fence guards refuse it`,
      { reason: "unfenced-lock" },
    );
  }
  parseFence(holder.fence);
  return holder.fence;
}

/** Reports a stale result to the server (fire and forget). */
export function reportStale(
  holder: FencedHolder,
  currentFence: string | null,
  target: string,
): void {
  try {
    holder.reportStaleFence?.({ currentFence, target });
  } catch {
    // Telemetry must never turn a refused write into a crash.
  }
}
