import { NotHolderError } from "@warden/contract";
import type { ReleaseInput, ReleaseReply } from "@warden/contract/wire";
import { traceFields } from "../telemetry/tracing.js";
import type { LockUseCaseDeps } from "./deps.js";
import type { LockCaller } from "./lock-caller.js";

type Deps = Pick<LockUseCaseDeps, "registry" | "locks" | "tracker" | "metrics" | "logger">;

/**
 * lock.release: releases one entry of the grant `lockId` on the caller's own resource;
 * the key is free when `released`. A lockId that does not hold this key (unknown, expired,
 * or another tenant's) is NOT_HOLDER and changes nothing; the store audits the release.
 */
export function releaseUseCase(deps: Deps) {
  return async function release(caller: LockCaller, input: ReleaseInput): Promise<ReleaseReply> {
    // Retired resources still release: their holders must be able to let go.
    if (!deps.registry.getCached(input.resource, caller.principal)) {
      await deps.registry.get(input.resource, caller.principal);
    }
    // Looked up before the release, which forgets the lease.
    const fence = deps.logger.isLevelEnabled("debug")
      ? (deps.tracker.find(input, input.lockId)?.fence ?? null)
      : null;
    try {
      const result = await deps.locks.release(input);
      deps.metrics.recordRelease(
        input.resource,
        result.released ? "released" : "reentry-left",
        deps.metrics.apps.of(caller.principal),
      );
      if (deps.logger.isLevelEnabled("debug")) {
        deps.logger.debug(
          {
            op: "release",
            resource: input.resource,
            businessKey: input.businessKey,
            lockId: input.lockId,
            fence,
            released: result.released,
            ...traceFields(),
          },
          "lock released",
        );
      }
      return { released: result.released, reentry: result.reentry, currentTier: deps.locks.tier };
    } catch (error) {
      if (error instanceof NotHolderError) {
        deps.metrics.recordRelease(
          input.resource,
          "not-holder",
          deps.metrics.apps.of(caller.principal),
        );
      }
      throw error;
    }
  };
}
