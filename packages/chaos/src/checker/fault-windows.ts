import type { ChaosEvent, NemesisEvent } from "../log/events.js";

/**
 * One fault's stretch of the run: from its injection to the next fault's injection (or the
 * end of the run), so every event belongs to exactly one window or to the baseline before
 * the first fault.
 */
export interface FaultWindow {
  readonly name: string;
  readonly kind: string;
  readonly index: number;
  /** Injected, monotonic ms. */
  readonly start: number;
  /** Undone (processes resumed, servers back, proxy passing), monotonic ms; null if never. */
  readonly heal: number | null;
  /** The next fault's start, or the run's end. */
  readonly end: number;
  /** Evidence the nemesis logged while injecting it. */
  readonly observations: readonly Readonly<Record<string, unknown>>[];
}

/** The windows, in schedule order, from the nemesis lines of the log. */
export function faultWindows(events: readonly ChaosEvent[], endMono: number): FaultWindow[] {
  const nemesis = events.filter((e): e is NemesisEvent => e.src === "nemesis");
  const starts = nemesis.filter((e) => e.ev === "fault-start").sort((a, b) => a.mono - b.mono);
  return starts.map((start, i) => {
    const mine = nemesis.filter((e) => e.index === start.index);
    const heal = mine.find((e) => e.ev === "fault-heal");
    return {
      name: start.fault,
      kind: start.kind,
      index: start.index,
      start: start.mono,
      heal: heal?.mono ?? null,
      end: starts[i + 1]?.mono ?? endMono,
      observations: mine.filter((e) => e.ev === "observe").map((e) => e.detail ?? {}),
    };
  });
}

/** Index into `windows` of the window containing `mono`; -1 for the baseline before them. */
export function windowOf(windows: readonly FaultWindow[], mono: number): number {
  let found = -1;
  for (let i = 0; i < windows.length; i += 1) {
    if (windows[i]!.start <= mono) found = i;
  }
  return found;
}

/** The first observation of a window that has `key`, or undefined. */
export function observation(window: FaultWindow, key: string): unknown {
  return window.observations.find((o) => key in o)?.[key];
}
