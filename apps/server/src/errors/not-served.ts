import { LockUnavailableError } from "@warden/contract";

/** The refusal of a call for a kind of lock this server was started without. */
export function notServed(kind: "semaphores" | "read-write locks"): LockUnavailableError {
  return new LockUnavailableError(`this server was started without ${kind}`, {
    reason: "unsupported",
  });
}
