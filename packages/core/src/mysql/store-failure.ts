import type { Pool } from "mysql2/promise";
import {
  LockUnavailableError,
  OutcomeUnknownError,
  type UncertainOperation,
  WardenError,
  type LockKey,
} from "@warden/contract";
import type { StoreEventEmitter } from "../events/event-emitter.js";
import { withCleanup } from "../store/uncertain-cleanup.js";
import { certainlyNotApplied } from "./driver-errors.js";
import { FORCE_RELEASE } from "./sql/force-release.js";

/** What turning a failure into a typed error needs from the store. */
export interface FailureContext {
  readonly pool: Pool;
  readonly timeoutMs: number;
  readonly events: StoreEventEmitter;
}

/**
 * The error a caller sees for a failed store call: typed errors pass through; a
 * statement that certainly did not run means the tier cannot serve now
 * (LockUnavailableError); anything else leaves the outcome unknown
 * (docs/design.md#no-replay-no-guess).
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
  const unknown = new OutcomeUnknownError(lockId, operation, { cause });
  if (operation === "acquire") {
    const cleanedUp = await ctx.pool
      .execute({
        sql: FORCE_RELEASE,
        values: [key.resource, key.businessKey, lockId],
        timeout: ctx.timeoutMs,
      })
      .then(() => true)
      .catch(() => false);
    ctx.events.lock(key, { type: "outcome-unknown", lockId, cleanedUp });
    return withCleanup(unknown, Promise.resolve(cleanedUp));
  }
  return unknown;
}
