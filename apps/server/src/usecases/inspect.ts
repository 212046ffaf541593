import type { InspectReply, LockKeyInput } from "@warden/contract/wire";
import type { LockUseCaseDeps } from "./deps.js";
import type { LockCaller } from "./lock-caller.js";

type Deps = Pick<LockUseCaseDeps, "registry" | "locks">;

/**
 * lock.inspect: the live lease of a key of the caller's own resource, or null; with no
 * lease, when a lock-delay in force ends (docs/decisions/0175).
 */
export function inspectUseCase(deps: Deps) {
  return async function inspect(caller: LockCaller, input: LockKeyInput): Promise<InspectReply> {
    if (!deps.registry.getCached(input.resource, caller.principal)) {
      await deps.registry.get(input.resource, caller.principal);
    }
    const lease = await deps.locks.inspect({
      resource: input.resource,
      businessKey: input.businessKey,
    });
    if (lease) return { lease, currentTier: deps.locks.tier };
    const delay = await deps.locks.inspectDelay({
      resource: input.resource,
      businessKey: input.businessKey,
    });
    return { lease, lockDelayUntil: delay?.lockDelayUntil ?? null, currentTier: deps.locks.tier };
  };
}
