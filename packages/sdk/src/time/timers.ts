/**
 * A timer for background work (watchdog, heartbeat, reconnect) that never keeps the
 * process alive on its own: a service that is done exits even while it holds a client.
 */
export function backgroundTimeout(callback: () => void, delayMs: number): NodeJS.Timeout {
  const timer = setTimeout(callback, Math.max(0, delayMs));
  timer.unref();
  return timer;
}

/**
 * Resolves after `delayMs`, or rejects with `signal.reason` once `signal` aborts. The
 * timer is ref'd on purpose: a caller awaits it (a backoff inside `acquire`), and the
 * process must not exit under an awaited call.
 */
export function sleep(delayMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      },
      Math.max(0, delayMs),
    );
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
