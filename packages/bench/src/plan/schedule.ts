import type { BenchPlan, CellSpec } from "./bench-plan.js";
import { VARIANTS } from "./variants.js";

/** One timed run of one cell. */
export interface Slot {
  /** 0 for the warm-up pass, then 1..rounds. */
  readonly round: number;
  /** Warm-up slots are run and thrown away: JIT, pools and connections settle in them. */
  readonly warmup: boolean;
  readonly cell: CellSpec;
  /** How long the slot issues new cycles, in ms. */
  readonly durationMs: number;
}

/** `concurrency/keys`: the cells of one group are compared with each other. */
export function groupKeyOf(cell: Pick<CellSpec, "concurrency" | "keys">): string {
  return `${cell.concurrency}/${cell.keys}`;
}

/**
 * Orders the plan's cells into slots: a warm-up pass, then `rounds` passes, each running
 * every cell once. Within a pass, cells that are compared with each other (same
 * concurrency and key space) run back to back in {@link VARIANTS} order — A B C … A B C …
 * — so a burst of noise from a neighbour on the box lands on all variants of a comparison
 * rather than on one, and the server's tier switches at most twice per group.
 */
export function buildSchedule(plan: BenchPlan): Slot[] {
  const groups = new Map<string, CellSpec[]>();
  for (const cell of plan.cells) {
    const key = groupKeyOf(cell);
    const group = groups.get(key);
    if (group) group.push(cell);
    else groups.set(key, [cell]);
  }
  const order = (cell: CellSpec) => VARIANTS.indexOf(cell.variant);
  const pass = [...groups.values()].flatMap((group) => group.sort((a, b) => order(a) - order(b)));
  const slots: Slot[] = [];
  if (plan.warmupMs > 0) {
    for (const cell of pass)
      slots.push({ round: 0, warmup: true, cell, durationMs: plan.warmupMs });
  }
  for (let round = 1; round <= plan.rounds; round += 1) {
    for (const cell of pass) slots.push({ round, warmup: false, cell, durationMs: plan.roundMs });
  }
  return slots;
}
