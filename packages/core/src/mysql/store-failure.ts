import type { Pool } from "mysql2/promise";
import { LockUnavailableError } from "../errors/lock-unavailable-error.js";
import { OutcomeUnknownError, type UncertainOperation } from "../errors/outcome-unknown-error.js";
import { WardenError } from "../errors/warden-error.js";
import type { LockEvent } from "../events/store-event.js";
import type { LockKey } from "../store/types.js";
import { certainlyNotApplied } from "./driver-errors.js";
import { FORCE_RELEASE } from "./sql/force-release.js";

/** What turning a failure into a typed error needs from the store. */
export interface FailureContext {
  readonly pool: Pool;
  readonly timeoutMs: number;
  readonly emit: (event: LockEvent) => void;
}

/**
 * The error a caller sees for a failed store call: typed errors pass through; a
 * statement that certainly did not run means the tier cannot serve now
 * (LockUnavailableError); anything else leaves the outcome unknown (S8).
 */
export async function storeFailure(
  ctx: FailureContext,
  operation: UncertainOperation,
  key: LockKey,
  lockId: string,
  error: unknown,
): Promise<Error> {
  if (error instanceof WardenError) return error;
  if (certainlyNotApplied(error)) {
    return new LockUnavailableError(`MySQL tier: ${operation} failed`, { cause: error });
  }
  return uncertainOutcome(ctx, operation, key, lockId, error);
}

/**
 * An OutcomeUnknownError; for an acquire, first ends the grant by its lockId in case it
 * was made (a re-entry keeps the older lockId and is left to expire).
 */
export async function uncertainOutcome(
  ctx: FailureContext,
  operation: UncertainOperation,
  key: LockKey,
  lockId: string,
  cause?: unknown,
): Promise<OutcomeUnknownError> {
  if (operation === "acquire") {
    const cleanedUp = await ctx.pool
      .execute({
        sql: FORCE_RELEASE,
        values: [key.resource, key.businessKey, lockId],
        timeout: ctx.timeoutMs,
      })
      .then(() => true)
      .catch(() => false);
    const { resource, businessKey } = key;
    ctx.emit({
      type: "outcome-unknown",
      resource,
      businessKey,
      tier: "mysql",
      at: Date.now(),
      lockId,
      cleanedUp,
    });
  }
  return new OutcomeUnknownError(lockId, operation, { cause });
}
