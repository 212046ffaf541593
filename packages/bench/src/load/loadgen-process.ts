import { fileURLToPath } from "node:url";
import type { CellSpec } from "../plan/bench-plan.js";
import { ForkedChild } from "../infra/forked-child.js";
import type { CpuProfile } from "../profile/cpu-profile.js";
import type { ProfileRequest } from "../profile/inspector-profiler.js";
import type { SlotResult } from "../stats/slot-result.js";
import type { HoldReport, LoadgenConfig, LoadgenRequest, RenewalReport } from "./loadgen-config.js";

/** Opening every variant (tsx compiling the SDK and core, connecting) takes a few s. */
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;

/** The coordinator's handle on the load-generator process. */
export class LoadgenProcess {
  private constructor(private readonly child: ForkedChild) {}

  /** Starts the load generator and waits until every variant in `config` is open. */
  static async start(config: LoadgenConfig) {
    const child = await ForkedChild.fork(
      fileURLToPath(new URL("./loadgen-child.ts", import.meta.url)),
      {
        label: "load generator",
        env: { PATH: process.env.PATH, WARDEN_BENCH_LOADGEN: JSON.stringify(config) },
        readyTimeoutMs: READY_TIMEOUT_MS,
      },
    );
    return new LoadgenProcess(child);
  }

  /** OS pid of the load generator, for /proc CPU reads. */
  get pid(): number {
    return this.child.pid;
  }

  /** Runs one cell for `durationMs` (cycles in flight then finish). */
  run(cell: CellSpec, durationMs: number): Promise<Omit<SlotResult, "cpuMs">> {
    return this.child.request({ kind: "run", ...cell, durationMs } satisfies LoadgenRequest);
  }

  /** Holds locks and queues waiters on the server for the RSS measurement. */
  hold(locks: number, waiters: number, waiterClients: number): Promise<HoldReport> {
    return this.child.request({
      kind: "hold",
      locks,
      waiters,
      waiterClients,
    } satisfies LoadgenRequest);
  }

  /** Counts the held locks' bulk renewals over one renewal period (after `hold`). */
  renewals(): Promise<RenewalReport> {
    return this.child.request({ kind: "renewals" } satisfies LoadgenRequest);
  }

  /** Starts sampling the load generator's CPU (see InspectorProfiler). */
  startProfile(): Promise<void> {
    return this.child.request({ kind: "profile-start" } satisfies ProfileRequest);
  }

  /** Stops sampling and returns the profile. */
  stopProfile(): Promise<CpuProfile> {
    return this.child.request({ kind: "profile-stop" } satisfies ProfileRequest);
  }

  /** SIGTERM (it closes its clients), SIGKILL after a grace period. */
  stop(): Promise<void> {
    return this.child.stop(STOP_GRACE_MS);
  }
}
