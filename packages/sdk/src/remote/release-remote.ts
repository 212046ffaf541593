import { NotHolderError, type Tier } from "@warden/contract";
import type { Connection } from "../transport/connection.js";
import { classifyFailure, failureToError } from "../transport/map-error.js";

/** One grant to release at the server. */
export interface RemoteGrantRef {
  readonly resource: string;
  readonly businessKey: string;
  readonly lockId: string;
  readonly tier: Tier;
}

// A grant re-entered server-side more often than this is a bug, not a workload.
const MAX_ENTRIES = 64;

/**
 * Releases every entry of a grant (the server counts re-entries by the same owner).
 * Resolves `not-held` when the store says the lockId holds nothing (expired, released, or
 * granted to another lockId): either way the key is not ours any more.
 *
 * @throws Error - no definite answer (typed as the failure's error); retry later.
 */
export async function releaseRemote(
  connection: Connection,
  grant: RemoteGrantRef,
  timeoutMs: number,
): Promise<"released" | "not-held"> {
  const input = {
    resource: grant.resource,
    businessKey: grant.businessKey,
    lockId: grant.lockId,
    tier: grant.tier,
  };
  for (let entry = 0; entry < MAX_ENTRIES; entry++) {
    let released: boolean;
    try {
      ({ released } = await connection.call(
        (api, call) => api.lock.release.mutate(input, call),
        timeoutMs,
      ));
    } catch (error) {
      const context = { operation: "release", resource: grant.resource, lockId: grant.lockId };
      const failure = classifyFailure(error, context);
      if (failure.kind === "answer" && failure.error instanceof NotHolderError) return "not-held";
      throw failureToError(failure, context);
    }
    if (released) return "released";
  }
  return "released";
}
