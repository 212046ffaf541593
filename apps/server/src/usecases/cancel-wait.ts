import { resourcePrefixOf } from "../auth/resource-prefix.js";
import type { CancelWaitInput, CancelWaitReply } from "@warden/contract/wire";
import type { LockUseCaseDeps } from "./deps.js";
import type { LockCaller } from "./lock-caller.js";

type Deps = Pick<LockUseCaseDeps, "lockService" | "locks">;

/**
 * lock.cancelWait: withdraws the caller's blocking acquire sent with `waitId`, on whichever
 * server instance runs it (docs/decisions/0155): that acquire ends with WAIT_CANCELLED and
 * its place in a fair key's queue is given up before this answers. waitIds are per
 * tenant: another tenant's waitId is unknown here (`cancelled: false`, nothing changes),
 * exactly like one that never existed; so is a wait on a resource outside the key's
 * resource prefix (docs/decisions/0100).
 */
export function cancelWaitUseCase(deps: Deps) {
  return async function cancelWait(
    caller: LockCaller,
    input: CancelWaitInput,
  ): Promise<CancelWaitReply> {
    const prefix = resourcePrefixOf(caller.principal);
    const cancelled = await deps.lockService.cancelWait(
      caller.principal.tenantId,
      input.waitId,
      prefix === null ? undefined : (resource) => resource.startsWith(prefix),
    );
    return { cancelled, currentTier: deps.locks.tier };
  };
}
