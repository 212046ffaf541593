/**
 * Resolves "woken" when `wake` is called, "timeout" after `ms`, or "aborted" when `signal`
 * aborts — whichever happens first — and cleans up its timer and listener.
 */
export function sleepUntilWoken(
  ms: number,
  signal: AbortSignal,
  register: (wake: () => void) => () => void,
): Promise<"woken" | "timeout" | "aborted"> {
  if (signal.aborted) return Promise.resolve("aborted");
  return new Promise((resolve) => {
    let unregister: () => void = () => undefined;
    const finish = (how: "woken" | "timeout" | "aborted") => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      unregister();
      resolve(how);
    };
    const onAbort = () => finish("aborted");
    const timer = setTimeout(() => finish("timeout"), Math.max(0, ms));
    signal.addEventListener("abort", onAbort, { once: true });
    unregister = register(() => finish("woken"));
  });
}
