/** Polls `check` every `everyMs` until it returns a truthy value or `timeoutMs` passes. */
export async function until<T>(
  check: () => Promise<T> | T,
  timeoutMs = 10_000,
  everyMs = 25,
  what = "condition",
): Promise<NonNullable<T>> {
  const started = performance.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (performance.now() - started > timeoutMs) {
      throw new Error(`${what} not met within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Resolves after `ms`. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
