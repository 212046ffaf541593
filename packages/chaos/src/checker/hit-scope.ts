import type { ChaosEvent, ObserverEvent, WorkerEvent } from "../log/events.js";
import type { LedgerRow } from "../ledger/ledger-types.js";
import { observation, type FaultWindow } from "./fault-windows.js";

/** Whether a fault demonstrably took effect, and the evidence either way. */
export interface Hit {
  readonly hit: boolean;
  readonly evidence: string;
}

/** One fault's window and everything logged, as the hit predicates read them. */
export interface Scope {
  readonly window: FaultWindow;
  readonly workers: readonly WorkerEvent[];
  readonly observers: readonly ObserverEvent[];
  readonly events: readonly ChaosEvent[];
  readonly ledger: readonly LedgerRow[];
}

const FENCE_COUNTER_SPAN = 8_589_934_592n;

/** Tier recovery waits out a 10 s hold-down, possibly past this window: look 60 s on. */
const RETURN_HORIZON_MS = 60_000;

/** The epoch part of a fence (its high bits: fence / 2^33). */
export function epochOf(fence: string): number {
  return Number(BigInt(fence) / FENCE_COUNTER_SPAN);
}

/** Between the injection and the heal. */
export function during(s: Scope, mono: number): boolean {
  return mono >= s.window.start && mono <= (s.window.heal ?? s.window.end);
}

/** Between the heal and the end of the window. */
export function after(s: Scope, mono: number): boolean {
  return s.window.heal !== null && mono >= s.window.heal && mono < s.window.end;
}

/** Anywhere in the window. */
export function inWindow(s: Scope, mono: number): boolean {
  return mono >= s.window.start && mono < s.window.end;
}

/** A hit or a miss, with what shows it. */
export function result(hit: boolean, evidence: string): Hit {
  return { hit, evidence };
}

/** Grants the workers got on `tier` at times `when` accepts. */
export function grantsOnTier(
  s: Scope,
  tier: string,
  when: (s: Scope, mono: number) => boolean,
): number {
  return s.workers.filter((e) => e.ev === "granted" && e.tier === tier && when(s, e.mono)).length;
}

/** Whether a scrape saw a server on `tier` at a time `when` accepts. */
export function observedTier(
  s: Scope,
  tier: string,
  when: (s: Scope, mono: number) => boolean,
): boolean {
  return s.observers.some((o) => o.up && o.tier === tier && when(s, o.mono));
}

/** A counter of the proxy group the fault switched, as logged at the heal. */
export function proxyCounted(s: Scope, counter: string): { count: number; text: string } {
  const stats = observation(s.window, "proxy") as Record<string, number> | undefined;
  const count = stats?.[counter] ?? 0;
  return { count, text: `proxy ${counter}: ${count}` };
}

/** Within a minute after the heal, even past the window (the return to Redis waits out a hold-down). */
export function soonAfterHeal(s: Scope, mono: number): boolean {
  return (
    s.window.heal !== null && mono >= s.window.heal && mono < s.window.heal + RETURN_HORIZON_MS
  );
}

/** The fleet left Redis: grants on tier mysql, or the observer saw it. */
export function degraded(s: Scope): Hit {
  const grants = grantsOnTier(s, "mysql", inWindow);
  const seen = observedTier(s, "mysql", inWindow);
  return result(grants > 0 || seen, `${grants} grants on tier mysql; observer saw mysql: ${seen}`);
}
