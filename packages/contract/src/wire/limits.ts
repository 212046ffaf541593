import { LIMITS } from "../limits.js";

/**
 * Limits the API enforces before a call reaches the lock engine: the engine's
 * {@link LIMITS} plus the API's own (waits, free text).
 */
export const API_LIMITS = Object.freeze({
  ...LIMITS,
  /** Longest server-side wait of one acquire, in ms (5 minutes). */
  maxWaitMs: 300_000,
  /** Longest free-text reason (force-release, override), in characters. */
  maxReasonChars: 500,
  /** Longest resource description, in characters. */
  maxDescriptionChars: 1_000,
});
