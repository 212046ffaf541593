import type { LeaseView, LockKey } from "../store/types.js";

/** Parts of the stored lease string `lockId|fence|reentry|clientId|ownerId`. */
export function decodeLease(key: LockKey, value: string, pttlMs: number, nowMs: number): LeaseView {
  const [lockId = "", fence = "", reentry = "0", clientId = "", ...owner] = value.split("|");
  return {
    resource: key.resource,
    businessKey: key.businessKey,
    lockId,
    fence,
    holder: { clientId, ownerId: owner.join("|") },
    reentry: Number(reentry),
    ttlMs: pttlMs,
    expiresAt: nowMs + pttlMs,
    tier: "redis",
  };
}
