import { setTimeout as sleep } from "node:timers/promises";
import type { FaultStep } from "../schedule/build-schedule.js";
import type { Stack } from "../stack/start-stack.js";

/** What a fault gets: the stack to hit, its schedule step, and how to record what it did. */
export class FaultContext {
  private healedAt: number | null = null;

  constructor(
    readonly stack: Stack,
    readonly step: FaultStep,
    readonly signal: AbortSignal,
  ) {}

  /** A parameter of the step (the schedule always sets the ones a fault reads). */
  param(name: string): number {
    const value = this.step.params[name];
    if (value === undefined) throw new Error(`fault ${this.step.name} has no parameter ${name}`);
    return value;
  }

  /** Records the injection, with what was hit. */
  start(detail?: Record<string, unknown>): void {
    this.record("fault-start", detail);
  }

  /** Records that the fault was undone; recovery is measured from here. */
  heal(detail?: Record<string, unknown>): void {
    const event = this.record("fault-heal", detail);
    this.healedAt = event.mono;
  }

  /** Records evidence for the checker. */
  observe(detail: Record<string, unknown>): void {
    this.record("observe", detail);
  }

  /** Monotonic ms of the heal, or null while the fault is still on. */
  get healMono(): number | null {
    return this.healedAt;
  }

  /** Sleeps, unless the run is being stopped. */
  async sleep(ms: number): Promise<void> {
    await sleep(ms, undefined, { signal: this.signal }).catch(() => undefined);
  }

  private record(ev: "fault-start" | "fault-heal" | "observe", detail?: Record<string, unknown>) {
    return this.stack.events.record({
      src: "nemesis",
      ev,
      fault: this.step.name,
      kind: this.step.kind,
      index: this.step.index,
      ...(detail ? { detail } : {}),
    });
  }
}
