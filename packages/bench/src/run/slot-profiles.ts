import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { VariantName } from "../plan/variants.js";
import type { CpuProfile, ProfileSummary } from "../profile/cpu-profile.js";
import { summarizeProfiles } from "../profile/summarize-profile.js";

/** Which process a profile sampled. */
export type ProfiledProcess = "server" | "loadgen";

/** A profiled stretch that is not a measured slot: the memory phase's renewal window. */
export type ProfiledPhase = "memory-renewals";

/** A summary of every measured slot of one variant (or one phase) in one process. */
export interface VariantProfile {
  readonly variant: VariantName | ProfiledPhase;
  readonly process: ProfiledProcess;
  readonly summary: ProfileSummary;
}

/**
 * Collects the CPU profiles of measured slots (`--profile`) and of the server over the
 * memory phase's renewal window, writes each one as a
 * `.cpuprofile` file (open it in Chrome DevTools or speedscope), and summarizes them per
 * variant and process. Server instance n > 1 of a fleet gets a `-n` suffix on its file; its
 * samples join the variant's server summary.
 */
export class SlotProfiles {
  private readonly byVariant = new Map<string, CpuProfile[]>();

  constructor(private readonly dir: string) {}

  async record(
    variant: VariantName,
    process: ProfiledProcess,
    round: number,
    concurrency: number,
    keys: number,
    profile: CpuProfile,
    instance = 1,
  ): Promise<void> {
    const key = `${variant}|${process}`;
    const list = this.byVariant.get(key) ?? [];
    list.push(profile);
    this.byVariant.set(key, list);
    await mkdir(this.dir, { recursive: true });
    await writeFile(
      join(
        this.dir,
        `${variant}-c${concurrency}-k${keys}-r${round}-${process}${instance > 1 ? `-${instance}` : ""}.cpuprofile`,
      ),
      JSON.stringify(profile),
    );
  }

  /** One profile of a whole phase, written as `<phase>-<process>.cpuprofile`. */
  async recordPhase(phase: ProfiledPhase, process: ProfiledProcess, profile: CpuProfile) {
    this.byVariant.set(`${phase}|${process}`, [profile]);
    await mkdir(this.dir, { recursive: true });
    await writeFile(join(this.dir, `${phase}-${process}.cpuprofile`), JSON.stringify(profile));
  }

  summaries(): VariantProfile[] {
    return [...this.byVariant.entries()].map(([key, profiles]) => {
      const [variant, process] = key.split("|") as [VariantName | ProfiledPhase, ProfiledProcess];
      return { variant, process, summary: summarizeProfiles(profiles) };
    });
  }
}
