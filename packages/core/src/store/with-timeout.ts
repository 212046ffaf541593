/** Raised by {@link withTimeout} when the deadline passes first. */
export class CallTimeoutError extends Error {
  override readonly name = "CallTimeoutError";

  constructor(readonly timeoutMs: number) {
    super(`no reply within ${timeoutMs} ms`);
  }
}

/**
 * Races a call against a deadline. The call itself is not cancelled (its reply may still
 * come); the caller treats the outcome as unknown. One promise and one timer per call:
 * this wraps every store command, so it stays cheaper than `Promise.race`.
 */
export function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new CallTimeoutError(timeoutMs)), timeoutMs);
    timer.unref();
    // Two handlers rather than `.finally`: one promise fewer per store call.
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: Error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
