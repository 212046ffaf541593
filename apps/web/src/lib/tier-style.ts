/** Where grants are made (docs/design.md#tiers-and-switching). */
export type Tier = "redis" | "mysql" | "local";

/** How worried the person on call should be, weakest first. */
export type Severity = "ok" | "info" | "warning" | "critical";

/** How a tier is shown: one colour per tier, everywhere in the console. */
export interface TierStyle {
  readonly tier: Tier;
  /** Short label for badges, e.g. `REDIS`. */
  readonly label: string;
  /** CSS tone token: `green`, `amber` or `red` (see globals.css `--tone-*`). */
  readonly tone: "green" | "amber" | "red";
  readonly severity: Severity;
  /** One sentence for the on-call engineer: what this tier means for their locks. */
  readonly meaning: string;
}

const STYLES: Readonly<Record<Tier, TierStyle>> = Object.freeze({
  redis: {
    tier: "redis",
    label: "REDIS",
    tone: "green",
    severity: "ok",
    meaning: "Normal: grants are made on Redis with fences.",
  },
  mysql: {
    tier: "mysql",
    label: "MYSQL",
    tone: "amber",
    severity: "warning",
    meaning: "Degraded: Redis is down, grants are made on MySQL (fenced, slower).",
  },
  local: {
    tier: "local",
    label: "LOCAL",
    tone: "red",
    severity: "critical",
    meaning:
      "Redis and MySQL are down: only resources with localFallback=allow get in-process locks, without fences; the rest are refused.",
  },
});

/** The colour, severity and meaning of a tier. */
export function tierStyle(tier: Tier): TierStyle {
  return STYLES[tier];
}

const SEVERITY_RANK: Readonly<Record<Severity, number>> = {
  ok: 0,
  info: 1,
  warning: 2,
  critical: 3,
};

/** Orders severities, worst first; for sorting alerts. */
export function compareSeverity(a: Severity, b: Severity): number {
  return SEVERITY_RANK[b] - SEVERITY_RANK[a];
}

/** The worst of several severities; `ok` for none. */
export function worstSeverity(severities: Iterable<Severity>): Severity {
  let worst: Severity = "ok";
  for (const severity of severities) {
    if (SEVERITY_RANK[severity] > SEVERITY_RANK[worst]) worst = severity;
  }
  return worst;
}

/** What the local-mode alert shows: nothing, the full-screen alert, or the banner after acknowledgement. */
export type LocalAlertMode = "none" | "full-screen" | "banner";

/**
 * Names one stay in a tier, so that an acknowledgement covers that stay only. The version
 * alone is not enough: while MySQL is down an instance decides alone and may not bump it.
 */
export function tierPeriodKey(state: { readonly version: number; readonly since: number }): string {
  return `${state.version}@${state.since}`;
}

/**
 * Whether the full-screen local-mode alert is due. An acknowledgement names the period
 * ({@link tierPeriodKey}) it saw; a new entry into `local` raises the alert again.
 */
export function localAlertMode(
  tier: Tier | undefined,
  periodKey: string | undefined,
  acknowledgedKey: string | null,
): LocalAlertMode {
  if (tier !== "local") return "none";
  return acknowledgedKey !== null && acknowledgedKey === periodKey ? "banner" : "full-screen";
}
