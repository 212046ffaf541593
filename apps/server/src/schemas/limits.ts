/**
 * Limits the API enforces before a call reaches the lock engine. They mirror
 * `@warden/core`'s `LIMITS` (a test keeps them equal); they are repeated here so that
 * this module stays pure zod and the console can import it without the engine.
 */
export const API_LIMITS = Object.freeze({
  /** Longest lease any grant may carry, in ms (DESIGN.md §2). */
  maxLeaseMs: 60_000,
  /** Longest server-side wait of one acquire, in ms (5 minutes). */
  maxWaitMs: 300_000,
  /** Longest resource name, in UTF-8 bytes. */
  maxResourceBytes: 128,
  /** Longest business key, in UTF-8 bytes. */
  maxBusinessKeyBytes: 200,
  /** Longest clientId / ownerId, in UTF-8 bytes. */
  maxHolderIdBytes: 128,
  /** Most replicas a grant may wait for. */
  maxWaitReplicas: 16,
  /** Largest page any list returns. */
  maxPageSize: 1_000,
  /** Longest free-text reason (force-release, override), in characters. */
  maxReasonChars: 500,
  /** Longest resource description, in characters. */
  maxDescriptionChars: 1_000,
});
