import { setTimeout as sleep } from "node:timers/promises";
import { monoNow } from "../log/clock.js";
import type { Stack } from "../stack/start-stack.js";
import { STACK_SETTINGS } from "../stack/stack-settings.js";
import type { Activity } from "./activity.js";

/** What is still missing for the service to count as whole; empty when it is. */
export function missingSince(
  stack: Stack,
  activity: Activity,
  sinceMono: number,
  needRedisTier: boolean,
): string[] {
  const missing: string[] = [];
  for (let i = 0; i < stack.fleet.size; i += 1) {
    const slot = stack.fleet.slot(i);
    if (slot.child.running && activity.grantedAt(slot.id, slot.inc) < sinceMono)
      missing.push(`grant to ${slot.id}`);
  }
  for (const account of STACK_SETTINGS.accounts) {
    if (activity.writtenAt(account) < sinceMono) missing.push(`write to ${account}`);
  }
  if (needRedisTier && !stack.observer.allOn("redis")) missing.push("tier redis on both servers");
  return missing;
}

/**
 * Waits until every running worker has been granted a lock and every account written
 * since `sinceMono` (the checker's recovery condition), and, if asked, both servers are on
 * tier `redis` again (after a degradation that takes the 10 s hold-down). Returns what was
 * still missing when `timeoutMs` ran out, or an empty list.
 */
export async function waitHealthy(
  stack: Stack,
  activity: Activity,
  sinceMono: number,
  needRedisTier: boolean,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<string[]> {
  const deadline = monoNow() + timeoutMs;
  let missing = missingSince(stack, activity, sinceMono, needRedisTier);
  while (missing.length > 0 && monoNow() < deadline && !signal.aborted) {
    await sleep(100);
    missing = missingSince(stack, activity, sinceMono, needRedisTier);
  }
  return missing;
}
