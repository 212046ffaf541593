import type { StaleFenceReply, StaleFenceReport } from "@warden/contract/wire";
import { auditRecord } from "../audit/audit-record.js";
import type { LockUseCaseDeps } from "./deps.js";
import type { LockCaller } from "./lock-caller.js";

type Deps = Pick<LockUseCaseDeps, "registry" | "locks" | "metrics" | "hub" | "logger">;

/**
 * lock.reportStaleFence: an SDK fence guard refused a write from an older holder. Counted,
 * logged and audited under the caller's own resource (never retried).
 */
export function reportStaleFenceUseCase(deps: Deps) {
  return async function reportStaleFence(
    caller: LockCaller,
    input: StaleFenceReport,
  ): Promise<StaleFenceReply> {
    await deps.registry.get(input.resource, caller.principal);
    deps.metrics.recordStaleFence(input.resource, deps.metrics.apps.of(caller.principal));
    deps.hub.record(
      auditRecord({
        type: "stale-fence",
        tenantId: caller.principal.tenantId,
        resource: input.resource,
        businessKey: input.businessKey,
        lockId: input.lockId ?? null,
        fence: input.fence,
        clientId: caller.clientId,
        ownerId: input.ownerId ?? null,
        reason: `stale fence ${input.fence}${input.currentFence ? ` < recorded ${input.currentFence}` : ""}${input.target ? ` at ${input.target}` : ""}`,
        at: Date.now(),
      }),
    );
    deps.logger.warn(
      {
        op: "stale-fence",
        resource: input.resource,
        businessKey: input.businessKey,
        lockId: input.lockId ?? null,
        fence: input.fence,
        currentFence: input.currentFence ?? null,
      },
      "stale fence rejected at the resource",
    );
    return { recorded: true, currentTier: deps.locks.tier };
  };
}
