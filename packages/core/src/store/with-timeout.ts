/** Raised by {@link withTimeout} when the deadline passes first. */
export class CallTimeoutError extends Error {
  override readonly name = "CallTimeoutError";

  constructor(readonly timeoutMs: number) {
    super(`no reply within ${timeoutMs} ms`);
  }
}

/**
 * Races a call against a deadline. The call itself is not cancelled (its reply may still
 * come); the caller treats the outcome as unknown.
 */
export function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CallTimeoutError(timeoutMs)), timeoutMs);
    timer.unref();
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
