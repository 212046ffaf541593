import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { checkRun } from "../checker/check-run.js";
import type { ChaosReport } from "../checker/report.js";
import type { RunFacts } from "../checker/run-facts.js";
import { readEvents } from "./read-events.js";

/**
 * Judges a finished run from its files only: `events.jsonl` (every process's log lines)
 * and `final.json` (the final ledger database, stuck locks, leftover processes). Also how
 * `pnpm chaos --check <dir>` re-judges an earlier run.
 */
export async function checkRunDir(runDir: string): Promise<ChaosReport> {
  const facts = JSON.parse(await readFile(join(runDir, "final.json"), "utf8")) as RunFacts;
  return checkRun(await readEvents(join(runDir, "events.jsonl")), facts);
}
