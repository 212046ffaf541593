import type { Tier } from "@warden/core";

/** Connections open on one instance, by kind. */
export interface ConnectionCounts {
  /** WebSockets speaking the SDK's batched lock protocol (docs/decisions/0065). */
  readonly lockSockets: number;
  /** tRPC WebSockets (SDK calls other than locks, subscriptions over WebSocket). */
  readonly trpcSockets: number;
  /** tRPC subscriptions over HTTP (Server-Sent Events: the console's live feed). */
  readonly sseStreams: number;
}

/** How one instance sees the tier: what its controller follows now. */
export interface TierView {
  readonly tier: Tier;
  /** Version of the shared `tier_state` row it follows. */
  readonly version: number;
  readonly epoch: number;
  /** Pinned by an operator. */
  readonly forced: boolean;
  /** MySQL unreachable: this instance decides without the others. */
  readonly decidedAlone: boolean;
}

/** What an instance announces about itself every beat. */
export interface InstanceAnnouncement {
  /** Per process: the configured instance name plus a random suffix (a restart is a new member). */
  readonly id: string;
  /** `WARDEN_INSTANCE_ID`. */
  readonly name: string;
  /** The server's package version. */
  readonly version: string;
  readonly host: string;
  readonly pid: number;
  /** ms since the Unix epoch, on the instance's clock. */
  readonly startedAt: number;
  /** Uptime when this announcement was made, ms. */
  readonly uptimeMs: number;
  readonly connections: ConnectionCounts;
  readonly tier: TierView;
  /** The TTL the announcement was written with, ms. */
  readonly ttlMs: number;
}

/** One member of the fleet as an instance answering `instance.list` sees it. */
export interface InstanceView extends InstanceAnnouncement {
  /** Time since its last announcement, ms (Redis's clock: the written TTL minus what is left). */
  readonly ageMs: number;
  /** Its last announcement on the answering instance's clock (now − ageMs). */
  readonly lastSeenAt: number;
  /** Missed beats: its entry will expire unless it announces again. */
  readonly stale: boolean;
  /** Its tier view differs from the fleet's newest (highest tier-state version). */
  readonly tierMismatch: boolean;
  /** The instance that answered. */
  readonly self: boolean;
}

const TIERS: ReadonlySet<string> = new Set(["redis", "mysql", "local"]);

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

function isText(value: unknown, max: number): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= max;
}

/**
 * Reads an announcement written by another instance; null when it is not one (another
 * version's format, or damage): such an entry is left out rather than trusted.
 */
export function parseAnnouncement(text: string): InstanceAnnouncement | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const v = value as Record<string, unknown>;
  const c = v["connections"] as Record<string, unknown> | undefined;
  const t = v["tier"] as Record<string, unknown> | undefined;
  if (
    !isText(v["id"], 200) ||
    !isText(v["name"], 200) ||
    !isText(v["version"], 64) ||
    !isText(v["host"], 255) ||
    !isCount(v["pid"]) ||
    !isCount(v["startedAt"]) ||
    !isCount(v["uptimeMs"]) ||
    !isCount(v["ttlMs"]) ||
    typeof c !== "object" ||
    c === null ||
    !isCount(c["lockSockets"]) ||
    !isCount(c["trpcSockets"]) ||
    !isCount(c["sseStreams"]) ||
    typeof t !== "object" ||
    t === null ||
    typeof t["tier"] !== "string" ||
    !TIERS.has(t["tier"]) ||
    !isCount(t["version"]) ||
    !isCount(t["epoch"]) ||
    typeof t["forced"] !== "boolean" ||
    typeof t["decidedAlone"] !== "boolean"
  ) {
    return null;
  }
  return {
    id: v["id"],
    name: v["name"],
    version: v["version"],
    host: v["host"],
    pid: v["pid"],
    startedAt: v["startedAt"],
    uptimeMs: v["uptimeMs"],
    ttlMs: v["ttlMs"],
    connections: {
      lockSockets: c["lockSockets"],
      trpcSockets: c["trpcSockets"],
      sseStreams: c["sseStreams"],
    },
    tier: {
      tier: t["tier"] as Tier,
      version: t["version"],
      epoch: t["epoch"],
      forced: t["forced"],
      decidedAlone: t["decidedAlone"],
    },
  };
}

/** An announcement as the answering instance presents it, before the fleet-wide comparison. */
export interface SeenAnnouncement {
  readonly announcement: InstanceAnnouncement;
  readonly ageMs: number;
}

/**
 * The fleet as `instance.list` returns it: stale when older than `staleAfterMs`; a tier
 * view is mismatched when it is not the one of the newest tier-state version among the
 * fresh entries (the decision every instance converges to). Own entry first, then by name.
 */
export function fleetViewOf(
  seen: readonly SeenAnnouncement[],
  selfId: string,
  nowMs: number,
  staleAfterMs: number,
): InstanceView[] {
  const fresh = seen.filter((entry) => entry.ageMs <= staleAfterMs);
  let newest: TierView | null = null;
  for (const { announcement } of fresh.length > 0 ? fresh : seen) {
    if (newest === null || announcement.tier.version > newest.version) newest = announcement.tier;
  }
  return seen
    .map(({ announcement, ageMs }) => ({
      ...announcement,
      ageMs,
      lastSeenAt: nowMs - ageMs,
      stale: ageMs > staleAfterMs,
      tierMismatch:
        newest !== null &&
        (announcement.tier.tier !== newest.tier || announcement.tier.version !== newest.version),
      self: announcement.id === selfId,
    }))
    .sort(
      (a, b) =>
        Number(b.self) - Number(a.self) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id),
    );
}
