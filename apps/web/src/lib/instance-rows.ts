import type { Tier } from "./tier-style";

/** One server instance as `instance.list` returns it (the fields the console shows). */
export interface InstanceEntry {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly host: string;
  readonly pid: number;
  readonly uptimeMs: number;
  readonly ageMs: number;
  readonly connections: {
    readonly lockSockets: number;
    readonly trpcSockets: number;
    readonly sseStreams: number;
  };
  readonly tier: {
    readonly tier: Tier;
    readonly version: number;
    readonly epoch: number;
    readonly forced: boolean;
    readonly decidedAlone: boolean;
  };
  readonly stale: boolean;
  readonly tierMismatch: boolean;
  readonly self: boolean;
}

/** `instance.list`'s answer (the fields the console reads). */
export interface FleetAnswerView {
  readonly source: "redis" | "self";
  readonly degradedReason: string | null;
  readonly staleAfterMs: number;
  readonly instances: readonly InstanceEntry[];
}

/** One table row: what each cell shows, and how the row is marked. */
export interface InstanceRow {
  readonly id: string;
  readonly name: string;
  /** `host / pid · v0.1.0` */
  readonly detail: string;
  readonly self: boolean;
  readonly tier: Tier;
  /** `v12 · epoch 3`, plus `forced` / `alone` when so. */
  readonly tierDetail: string;
  /** Uptime now: the announced uptime plus the time since the announcement. */
  readonly uptimeMs: number;
  /** Time since its last announcement, now. */
  readonly lastSeenAgoMs: number;
  readonly connections: InstanceEntry["connections"];
  readonly totalConnections: number;
  /** Missed beats: greyed. */
  readonly stale: boolean;
  /** Sees another tier (or an older tier-state version) than the fleet's newest: highlighted. */
  readonly tierMismatch: boolean;
}

/** The page's model: rows and what the headline says. */
export interface InstancesModel {
  readonly rows: readonly InstanceRow[];
  readonly total: number;
  readonly stale: number;
  readonly mismatched: number;
  readonly connections: number;
  /** Shown above the table when the list is the answering instance alone. */
  readonly warning: string | null;
}

/**
 * Shapes `instance.list` for the table. `sinceAnswerMs` is how long ago (browser clock)
 * the answer arrived: ages and uptimes tick from the server's figures, so a skewed
 * laptop clock cannot misstate them.
 */
export function instancesModel(answer: FleetAnswerView, sinceAnswerMs: number): InstancesModel {
  const elapsed = Math.max(0, sinceAnswerMs);
  const rows = answer.instances.map((entry): InstanceRow => {
    const flags = [entry.tier.forced ? "forced" : null, entry.tier.decidedAlone ? "alone" : null];
    return {
      id: entry.id,
      name: entry.name,
      detail: `${entry.host} / ${entry.pid} · v${entry.version}`,
      self: entry.self,
      tier: entry.tier.tier,
      tierDetail: [`v${entry.tier.version}`, `epoch ${entry.tier.epoch}`, ...flags]
        .filter((part) => part !== null)
        .join(" · "),
      uptimeMs: entry.uptimeMs + entry.ageMs + elapsed,
      lastSeenAgoMs: entry.ageMs + elapsed,
      connections: entry.connections,
      totalConnections:
        entry.connections.lockSockets +
        entry.connections.trpcSockets +
        entry.connections.sseStreams,
      // Ticking past the threshold between refreshes greys it before the next answer does.
      stale: entry.stale || (!entry.self && entry.ageMs + elapsed > answer.staleAfterMs),
      tierMismatch: entry.tierMismatch,
    };
  });
  return {
    rows,
    total: rows.length,
    stale: rows.filter((row) => row.stale).length,
    mismatched: rows.filter((row) => row.tierMismatch).length,
    connections: rows.reduce((sum, row) => sum + row.totalConnections, 0),
    warning:
      answer.source === "self"
        ? `Only the instance that answered is shown: ${answer.degradedReason ?? "the registry is unavailable"}.`
        : null,
  };
}
