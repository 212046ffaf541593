export * from "./errors/index.js";
export type { Tier, Holder, LockKey, LeaseView, Grant, Refusal, AcquireResult } from "./types.js";
export { LIMITS } from "./limits.js";
export { newLockId, newRandomId } from "./lock-id.js";
export { canonicalText, textProblem, utf8Length } from "./text.js";
export {
  validateResource,
  validateLockKey,
  validateHolder,
  validateLeaseMs,
  validateLockId,
  validateWaitReplicas,
  validatePageSize,
} from "./validate.js";
export {
  FENCE_LAYOUT,
  composeFence,
  parseFence,
  splitFence,
  compareFences,
} from "./fence-layout.js";
