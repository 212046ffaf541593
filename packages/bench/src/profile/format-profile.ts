import type { ProfileSummary } from "./cpu-profile.js";
import { markdownTable } from "../report/markdown-table.js";

/** A profile summary as two Markdown tables (areas, then functions). */
export function formatProfile(title: string, summary: ProfileSummary): string {
  const rows = (entries: ProfileSummary["areas"]) =>
    entries.map((e) => [e.name, e.selfMs.toFixed(0), `${(e.share * 100).toFixed(1)}%`]);
  return [
    `### ${title}: ${(summary.busyMs / 1000).toFixed(1)} s of CPU sampled`,
    "",
    markdownTable(["area", "self ms", "share"], rows(summary.areas), ["left", "right", "right"]),
    "",
    markdownTable(["function", "self ms", "share"], rows(summary.functions), [
      "left",
      "right",
      "right",
    ]),
    "",
  ].join("\n");
}
