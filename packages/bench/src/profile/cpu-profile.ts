/** The parts of a V8 `.cpuprofile` (node --cpu-prof) the summary reads. */
export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: {
      readonly functionName: string;
      readonly url: string;
      readonly lineNumber: number;
    };
  }[];
  /** Start and end of sampling, in µs. */
  readonly startTime: number;
  readonly endTime: number;
  /** The node id on top of the stack at each sample. */
  readonly samples: readonly number[];
  /** µs between consecutive samples (the first is from startTime). */
  readonly timeDeltas: readonly number[];
}

/** Self time of one group (an area of code or one function). */
export interface ProfileEntry {
  readonly name: string;
  /** Self time, in ms. */
  readonly selfMs: number;
  /** Share of the busy (non-idle) time, in [0, 1]. */
  readonly share: number;
}

/** Where a profiled process spent its CPU. */
export interface ProfileSummary {
  /** Busy sampled time (everything but `(idle)`), in ms. */
  readonly busyMs: number;
  /** Self time by area: a package, a Warden source directory, node internals, GC. */
  readonly areas: readonly ProfileEntry[];
  /** The functions with the most self time. */
  readonly functions: readonly ProfileEntry[];
}
