import type { VariantName } from "../plan/variants.js";

/** A lock a cycle got; `finish` does the cycle's work under it (if any) and releases it. */
export interface Held {
  finish(): Promise<void>;
}

/** One lock path as the load generator drives it. */
export interface Variant {
  readonly name: VariantName;
  /**
   * Tries to take `businessKey` without waiting.
   * @returns the held lock, or null when another holder has the key
   */
  tryAcquire(businessKey: string): Promise<Held | null>;
  /** Closes connections and clients; idempotent. */
  close(): Promise<void>;
}
