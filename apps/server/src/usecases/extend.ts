import { InvalidArgumentError, LeaseLostError, NotHolderError } from "@warden/contract";
import type { ExtendInput, ExtendReply } from "@warden/contract/wire";
import { recordRenewalRefused } from "../locks/renewal-refused.js";
import { traceFields } from "../telemetry/tracing.js";
import type { LockUseCaseDeps } from "./deps.js";
import type { LockCaller } from "./lock-caller.js";

type Deps = Pick<
  LockUseCaseDeps,
  "registry" | "locks" | "tracker" | "metrics" | "stats" | "hub" | "logger"
>;

/**
 * lock.extend: renews the grant `lockId` to `leaseMs` from now (default: the resource's
 * defaultLeaseMs), within the resource's maxLeaseMs and maxRenewals. A refusal is counted,
 * logged and audited as `renewal-refused` with the holder this instance saw grant *this
 * key* under that lockId; a lockId of another key or tenant is treated as unknown.
 */
export function extendUseCase(deps: Deps) {
  return async function extend(caller: LockCaller, input: ExtendInput): Promise<ExtendReply> {
    const tenantId = caller.principal.tenantId;
    const app = deps.metrics.apps.of(caller.principal);
    const resource =
      deps.registry.resolveCached(input.resource, caller.principal) ??
      (await deps.registry.resolve(input.resource, caller.principal));
    const leaseMs = input.leaseMs ?? resource.defaultLeaseMs;
    if (leaseMs > resource.maxLeaseMs) {
      throw new InvalidArgumentError(
        "leaseMs",
        `must be at most ${resource.maxLeaseMs} ms for ${resource.name}`,
      );
    }
    // Counted by the instance that saw the grant (the SDK also stops at maxRenewals).
    const tracked = deps.tracker.find(input, input.lockId);
    if (resource.maxRenewals !== null && (tracked?.renewals ?? 0) >= resource.maxRenewals) {
      recordRenewalRefused(deps, { ...input, tenantId, app, reason: "renewal-limit" });
      throw new LeaseLostError(
        input.lockId,
        `lock ${input.lockId} reached the renewal limit of ${resource.name} (${resource.maxRenewals}); the lease runs out — finish or acquire again`,
      );
    }
    try {
      const lease = await deps.locks.extend({ ...input, leaseMs });
      if (deps.logger.isLevelEnabled("debug")) {
        deps.logger.debug(
          {
            op: "extend",
            resource: lease.resource,
            businessKey: lease.businessKey,
            lockId: lease.lockId,
            fence: lease.fence,
            leaseMs,
            ...traceFields(),
          },
          "lock extended",
        );
      }
      return { ...lease, currentTier: deps.locks.tier };
    } catch (error) {
      if (error instanceof NotHolderError) {
        recordRenewalRefused(deps, { ...input, tenantId, app, reason: error.reason });
      }
      throw error;
    }
  };
}
