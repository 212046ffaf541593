import { performance } from "node:perf_hooks";
import {
  InvalidArgumentError,
  LockTimeoutError,
  LockUnavailableError,
  WaitCancelledError,
  type AcquireResult,
  type Holder,
  type Tier,
} from "@warden/contract";
import type { AcquireInput, AcquireReply } from "@warden/contract/wire";
import type { ResourceView } from "../registry/resource-view.js";
import type { AcquireOutcome } from "../stats/stats-collector.js";
import { traceFields } from "../telemetry/tracing.js";
import type { LockUseCaseDeps } from "./deps.js";
import { clientIdOf, type LockCaller } from "./lock-caller.js";

type Deps = Pick<
  LockUseCaseDeps,
  "registry" | "lockService" | "locks" | "metrics" | "stats" | "logger"
>;

function outcomeOf(error: unknown): AcquireOutcome {
  if (error instanceof LockTimeoutError) return "timeout";
  if (error instanceof WaitCancelledError) return "cancelled";
  if (error instanceof LockUnavailableError) return "unavailable";
  return "error";
}

/**
 * lock.acquire: grants `(resource, businessKey)` to the caller's `ownerId` under the
 * resource's policy, waiting server-side up to `waitMs` (the lock service does the store
 * work and the waiting), or says who holds it. Counts every outcome and its latency (by
 * resource, tier, outcome and calling application), feeds the stats and logs grants
 * and refusals at debug. `signal` ends a wait when the caller goes away.
 */
export function acquireUseCase(deps: Deps) {
  function log(
    resource: ResourceView,
    businessKey: string,
    holder: Holder,
    result: AcquireResult,
    leaseMs: number,
  ) {
    if (!deps.logger.isLevelEnabled("debug")) return;
    if (result.granted) {
      deps.logger.debug(
        {
          op: "acquire",
          resource: result.resource,
          businessKey: result.businessKey,
          lockId: result.lockId,
          fence: result.fence,
          tier: result.tier,
          leaseMs,
          reentry: result.reentry,
          clientId: holder.clientId,
          ownerId: holder.ownerId,
          ...traceFields(),
        },
        "lock granted",
      );
    } else {
      deps.logger.debug(
        {
          op: "acquire",
          resource: resource.name,
          businessKey,
          lockId: null,
          fence: null,
          tier: result.tier,
          heldBy: result.holder,
          ...traceFields(),
        },
        "lock refused",
      );
    }
  }

  return async function acquire(
    caller: LockCaller,
    input: AcquireInput,
    signal: AbortSignal,
  ): Promise<AcquireReply> {
    const clientId = clientIdOf(caller);
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
    const holder: Holder = { clientId, ownerId: input.ownerId };
    const started = performance.now();
    let outcome: AcquireOutcome = "error";
    let tier: Tier = deps.locks.tier;
    let result: AcquireResult;
    try {
      result = await deps.lockService.acquire({
        principal: caller.principal,
        resource,
        businessKey: input.businessKey,
        holder,
        leaseMs,
        waitMs: input.waitMs ?? 0,
        waitId: input.waitId ?? null,
        signal,
      });
      outcome = result.granted ? "granted" : "refused";
      tier = result.tier;
    } catch (error) {
      outcome = outcomeOf(error);
      throw error;
    } finally {
      const latencyMs = performance.now() - started;
      const app = deps.metrics.apps.of(caller.principal);
      deps.metrics.recordAcquire(resource.name, tier, outcome, app, latencyMs / 1000);
      deps.stats.recordAcquire(resource.name, outcome, latencyMs);
    }
    log(resource, input.businessKey, holder, result, leaseMs);
    const currentTier = deps.locks.tier;
    if (!result.granted) {
      return {
        granted: false,
        holder: result.holder,
        ttlMs: result.ttlMs,
        tier: result.tier,
        currentTier,
      };
    }
    return {
      granted: true,
      lockId: result.lockId,
      fence: result.fence,
      tier: result.tier,
      expiresAt: result.expiresAt,
      ttlMs: result.ttlMs,
      reentry: result.reentry,
      maxRenewals: resource.maxRenewals,
      currentTier,
    };
  };
}
