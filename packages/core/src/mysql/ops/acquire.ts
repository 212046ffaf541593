import {
  LockUnavailableError,
  newLockId,
  validateHolder,
  validateLeaseMs,
  validateLockKey,
  validateWaitReplicas,
  type AcquireResult,
} from "@warden/contract";
import { validateFairWait } from "../../store/fair-wait.js";
import { validateLockDelayMs, type AcquireInput } from "../../store/lock-store.js";
import { acquireStep, busyRefusal, type AcquireStep } from "../acquire-step.js";
import { storeFailure, uncertainOutcome } from "../store-failure.js";
import type { MysqlOpContext } from "./mysql-op-context.js";

// Two renewals (stale epoch, then a counter that ran out) plus a retry for a row that
// changed under the report.
const MAX_ACQUIRE_STEPS = 4;

/** LockStore.acquire on MySQL: the one-statement decision (see acquire-step.ts), retried on epoch renewals. */
export async function acquireOp(ctx: MysqlOpContext, input: AcquireInput): Promise<AcquireResult> {
  const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
  const holder = validateHolder(input.holder);
  const leaseMs = validateLeaseMs(input.leaseMs);
  validateWaitReplicas(input.waitReplicas);
  const fair = validateFairWait(input.fair);
  const lockDelayMs = validateLockDelayMs(input.lockDelayMs);
  const lockId = newLockId();
  let last: AcquireStep["kind"] = "retry";
  try {
    await ctx.epochs.ensureFloor();
    for (let step = 0; step < MAX_ACQUIRE_STEPS; step += 1) {
      const outcome = await acquireStep(ctx, key, holder, leaseMs, lockId, fair, lockDelayMs);
      last = outcome.kind;
      if (outcome.kind === "answer") return outcome.result;
      if (outcome.kind === "lost") throw await uncertainOutcome(ctx, "acquire", key, lockId);
      if (outcome.kind === "renew-epoch") await ctx.epochs.renew(outcome.reason);
    }
  } catch (error) {
    throw await storeFailure(ctx, "acquire", key, lockId, error);
  }
  // Every attempt found the key held when its statement ran and free again when the
  // report read it: a hot key changing hands faster than two round trips. Nothing was
  // granted; that is a refusal ("busy, try again"), not an unavailable tier.
  if (last === "retry") return busyRefusal(ctx, key, holder).result;
  throw new LockUnavailableError("the MySQL tier could not settle on a fencing epoch", {
    reason: "fencing-epoch",
  });
}
