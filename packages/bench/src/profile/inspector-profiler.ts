import { Session } from "node:inspector/promises";
import type { CpuProfile } from "./cpu-profile.js";

/**
 * Samples this process's main thread through the inspector, between `start` and `stop`
 * only — unlike `node --cpu-prof`, which also records start-up (tsx compiling every
 * module) and the idle time between slots.
 */
export class InspectorProfiler {
  private session: Session | null = null;

  async start(): Promise<void> {
    if (this.session) throw new Error("the profiler is already running");
    const session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
    this.session = session;
  }

  /** Stops sampling and returns what was sampled since `start`. */
  async stop(): Promise<CpuProfile> {
    const session = this.session;
    if (!session) throw new Error("the profiler is not running");
    this.session = null;
    try {
      const { profile } = await session.post("Profiler.stop");
      return profile as unknown as CpuProfile;
    } finally {
      session.disconnect();
    }
  }
}

/** A profiling request a bench child answers (see `serveParent`). */
export type ProfileRequest = { readonly kind: "profile-start" } | { readonly kind: "profile-stop" };

/** Answers a profiling request, or returns undefined when `body` is not one. */
export function handleProfileRequest(
  profiler: InspectorProfiler,
  body: unknown,
): Promise<CpuProfile | null> | undefined {
  const kind = (body as { kind?: unknown } | null)?.kind;
  if (kind === "profile-start") return profiler.start().then(() => null);
  if (kind === "profile-stop") return profiler.stop();
  return undefined;
}
