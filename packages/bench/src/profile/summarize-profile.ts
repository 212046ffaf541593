import { codeArea } from "./code-area.js";
import type { CpuProfile, ProfileEntry, ProfileSummary } from "./cpu-profile.js";

/** V8's frame for time the thread waited for work; not CPU. */
const IDLE = "(idle)";

function top(selfUs: Map<string, number>, busyUs: number, count: number): ProfileEntry[] {
  return [...selfUs.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, us]) => ({ name, selfMs: us / 1000, share: busyUs > 0 ? us / busyUs : 0 }));
}

/**
 * Self time per area and per function over V8 CPU profiles (one per slot, added up): each
 * sample's time delta is charged to the frame on top of the stack. Idle samples are left
 * out of the shares.
 */
export function summarizeProfiles(profiles: readonly CpuProfile[], limit = 15): ProfileSummary {
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  let busyUs = 0;
  for (const profile of profiles) {
    busyUs += chargeSamples(profile, areas, functions);
  }
  return {
    busyMs: busyUs / 1000,
    areas: top(areas, busyUs, limit),
    functions: top(functions, busyUs, limit),
  };
}

/** Adds one profile's self times to the maps; returns its busy time, in µs. */
function chargeSamples(
  profile: CpuProfile,
  areas: Map<string, number>,
  functions: Map<string, number>,
): number {
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const lastAtUs = profile.startTime + profile.timeDeltas.reduce((sum, us) => sum + us, 0);
  let busyUs = 0;
  profile.samples.forEach((id, index) => {
    const frame = byId.get(id);
    // A sample stands for the time until the next one (the last: until the profile ended),
    // as DevTools counts it.
    const us = profile.timeDeltas[index + 1] ?? Math.max(0, profile.endTime - lastAtUs);
    if (!frame || frame.functionName === IDLE || us <= 0) return;
    busyUs += us;
    const area = codeArea(frame.url, frame.functionName);
    areas.set(area, (areas.get(area) ?? 0) + us);
    const file = frame.url.split("/").pop() ?? "";
    const name = `${frame.functionName || "(anonymous)"}${file ? ` ${file}:${frame.lineNumber + 1}` : ""} [${area}]`;
    functions.set(name, (functions.get(name) ?? 0) + us);
  });
  return busyUs;
}
