/**
 * Hard limits every tier enforces. Resource policies may be stricter, never looser.
 */
export const LIMITS = Object.freeze({
  /** Longest lease any grant may carry, in ms (docs/design.md#resource-policy). */
  maxLeaseMs: 60_000,
  /** Longest resource name, in UTF-8 bytes. */
  maxResourceBytes: 128,
  /** Longest business key, in UTF-8 bytes: long enough for composite ids, short enough to keep keys small. */
  maxBusinessKeyBytes: 200,
  /** Longest clientId / ownerId, in UTF-8 bytes. */
  maxHolderIdBytes: 128,
  /** Most replicas a grant may wait for. */
  maxWaitReplicas: 16,
  /** Largest page a list call returns. */
  maxPageSize: 1_000,
});
