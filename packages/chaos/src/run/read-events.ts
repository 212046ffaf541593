import { readFile } from "node:fs/promises";
import type { ChaosEvent } from "../log/events.js";

/** Every event of a run's `events.jsonl` (lines that are not JSON are skipped). */
export async function readEvents(path: string): Promise<ChaosEvent[]> {
  const text = await readFile(path, "utf8");
  const events: ChaosEvent[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      events.push(JSON.parse(line) as ChaosEvent);
    } catch {
      // A line cut short by a kill: nothing to judge.
    }
  }
  return events;
}
