import { setTimeout as sleep } from "node:timers/promises";
import { monoNow } from "../log/clock.js";
import type { Stack } from "../stack/start-stack.js";
import { STACK_SETTINGS } from "../stack/stack-settings.js";
import type { Activity } from "./activity.js";

/** What a wait waits for. */
export interface HealthyWhen {
  /** Every running mutex worker granted and every account (the leader's too) written since this monotonic ms; null: not asked. */
  readonly servedSince: number | null;
  /** Every server on tier `redis`. */
  readonly redisTier: boolean;
  readonly timeoutMs: number;
}

/** What is still missing for the service to count as whole; empty when it is. */
export function missingSince(stack: Stack, activity: Activity, when: HealthyWhen): string[] {
  const missing: string[] = [];
  if (when.servedSince !== null) {
    for (let i = 0; i < stack.fleet.size; i += 1) {
      const slot = stack.fleet.slot(i);
      // A candidate that is not the leader is never granted: the leader's writes stand for all.
      if (
        slot.role !== "leader" &&
        slot.child.running &&
        activity.grantedAt(slot.id, slot.inc) < when.servedSince
      ) {
        missing.push(`grant to ${slot.id}`);
      }
    }
    for (const account of [
      ...STACK_SETTINGS.accounts,
      STACK_SETTINGS.leaderAccount,
      ...STACK_SETTINGS.semaphoreSlots,
    ]) {
      if (activity.writtenAt(account) < when.servedSince) missing.push(`write to ${account}`);
    }
  }
  if (when.redisTier && !stack.observer.allOn("redis")) missing.push("tier redis on every server");
  return missing;
}

/**
 * Waits until the service is served again (every running worker granted and every account
 * written since `servedSince`: the checker's recovery condition) and, if asked, all
 * servers are on tier `redis` (after a degradation that takes the 10 s hold-down).
 * Returns what was still missing when `timeoutMs` ran out, or an empty list.
 */
export async function waitHealthy(
  stack: Stack,
  activity: Activity,
  when: HealthyWhen,
  signal: AbortSignal,
): Promise<string[]> {
  const deadline = monoNow() + when.timeoutMs;
  let missing = missingSince(stack, activity, when);
  while (missing.length > 0 && monoNow() < deadline && !signal.aborted) {
    await sleep(100);
    missing = missingSince(stack, activity, when);
  }
  return missing;
}
