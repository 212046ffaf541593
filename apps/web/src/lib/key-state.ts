import { countdown, formatAge, type Countdown } from "./format-time";

/** A permit as `keyState.keys` returns it for a semaphore key (the fields shown). */
export interface PermitState {
  readonly lockId: string;
  readonly fence: string | null;
  readonly holder: { readonly clientId: string; readonly ownerId: string };
  readonly permits: number;
  readonly grantedAt: number;
  readonly expiresAt: number;
  /** Lease left when the store answered, in ms. */
  readonly ttlMs: number;
  readonly tier: string;
}

/** A semaphore key as `keyState.keys` returns it. */
export interface SemaphoreKeyState {
  readonly businessKey: string;
  readonly inUse: number;
  readonly holders: readonly PermitState[];
}

/** A mutex key's live lease as `keyState.keys` returns it (the fields shown). */
export interface LeaseState {
  readonly lockId: string;
  readonly fence: string | null;
  readonly holder: { readonly clientId: string; readonly ownerId: string };
  readonly expiresAt: number;
  readonly ttlMs: number;
  readonly grantedAt: number | null;
  readonly renewals: number | null;
  readonly tier: string;
}

/** A mutex key as `keyState.keys` returns it. */
export interface MutexKeyState {
  readonly businessKey: string;
  readonly lease: LeaseState | null;
  readonly lockDelay: { readonly until: number; readonly remainingMs: number } | null;
}

/** One permit grant of a key, for the permits table. */
export interface PermitRow {
  readonly lockId: string;
  readonly fence: string | null;
  readonly clientId: string;
  readonly ownerId: string;
  readonly permits: number;
  readonly age: string;
  readonly countdown: Countdown;
}

/** One semaphore key: how full it is and who holds its permits. */
export interface PermitKeyRow {
  readonly businessKey: string;
  readonly inUse: number;
  readonly total: number;
  /** 0..100, for the meter. */
  readonly fullPct: number;
  readonly holders: readonly PermitRow[];
}

// The store's clock minus the browser's, from an answer's expiry and ttl: ages are measured
// on the store's clock, countdowns from the ttl (docs/decisions/0020).
const storeOffset = (expiresAt: number, ttlMs: number, receivedAtMs: number) =>
  expiresAt - ttlMs - receivedAtMs;

/**
 * Semaphore keys with permits in use, fullest first (then by key); keys with none are left
 * out. Countdowns run from each permit's `ttlMs` at `receivedAtMs`, never from `expiresAt`.
 */
export function permitKeyRows(
  keys: readonly SemaphoreKeyState[],
  total: number,
  receivedAtMs: number,
  nowMs: number,
): PermitKeyRow[] {
  return keys
    .filter((key) => key.inUse > 0)
    .map((key) => ({
      businessKey: key.businessKey,
      inUse: key.inUse,
      total,
      fullPct: total > 0 ? Math.min(100, Math.round((key.inUse / total) * 100)) : 0,
      holders: [...key.holders]
        .sort((a, b) => a.grantedAt - b.grantedAt)
        .map((permit) => ({
          lockId: permit.lockId,
          fence: permit.fence,
          clientId: permit.holder.clientId,
          ownerId: permit.holder.ownerId,
          permits: permit.permits,
          age: formatAge(
            permit.grantedAt,
            nowMs + storeOffset(permit.expiresAt, permit.ttlMs, receivedAtMs),
          ),
          countdown: countdown(
            receivedAtMs + permit.ttlMs,
            nowMs,
            Math.max(permit.ttlMs, permit.expiresAt - permit.grantedAt),
          ),
        })),
    }))
    .sort(
      (a, b) =>
        b.inUse / (b.total || 1) - a.inUse / (a.total || 1) ||
        a.businessKey.localeCompare(b.businessKey),
    );
}

/** A key held back by a lock-delay: nobody holds it, and nobody may until `untilMs`. */
export interface LockDelayRow {
  readonly businessKey: string;
  /** When the delay ends, on the store's clock. */
  readonly untilMs: number;
  readonly countdown: Countdown;
}

/** Keys in their lock-delay, the soonest free first; the countdown runs from `remainingMs`. */
export function lockDelayRows(
  keys: readonly MutexKeyState[],
  receivedAtMs: number,
  nowMs: number,
): LockDelayRow[] {
  return keys
    .flatMap((key) =>
      key.lockDelay === null
        ? []
        : [
            {
              businessKey: key.businessKey,
              untilMs: key.lockDelay.until,
              countdown: countdown(receivedAtMs + key.lockDelay.remainingMs, nowMs),
            },
          ],
    )
    .filter((row) => row.countdown.state !== "expired")
    .sort((a, b) => a.countdown.remainingMs - b.countdown.remainingMs);
}

/** Who holds (leads) a key now, for the key's history panel. */
export interface LeaderView {
  readonly lockId: string;
  /** The fence: a leader's term. */
  readonly term: string | null;
  readonly clientId: string;
  readonly ownerId: string;
  /** Granted at, on the store's clock; null when unknown. */
  readonly sinceMs: number | null;
  /** `4.2 s` held so far; `—` when the grant time is unknown. */
  readonly heldFor: string;
  readonly countdown: Countdown;
  readonly renewals: number | null;
  readonly tier: string;
}

/** The live lease of a key as its leader, or null when nobody holds it. */
export function leaderOf(
  state: MutexKeyState | null | undefined,
  receivedAtMs: number,
  nowMs: number,
): LeaderView | null {
  const lease = state?.lease;
  if (!lease) return null;
  const storeNowMs = nowMs + storeOffset(lease.expiresAt, lease.ttlMs, receivedAtMs);
  return {
    lockId: lease.lockId,
    term: lease.fence,
    clientId: lease.holder.clientId,
    ownerId: lease.holder.ownerId,
    sinceMs: lease.grantedAt,
    heldFor: lease.grantedAt === null ? "—" : formatAge(lease.grantedAt, storeNowMs),
    countdown: countdown(
      receivedAtMs + lease.ttlMs,
      nowMs,
      lease.grantedAt === null
        ? undefined
        : Math.max(lease.ttlMs, lease.expiresAt - lease.grantedAt),
    ),
    renewals: lease.renewals,
    tier: lease.tier,
  };
}

/** A read or write grant as `keyState.keys` returns it for an rwlock key (the fields shown). */
export interface RwGrantState {
  readonly lockId: string;
  readonly mode: "read" | "write";
  readonly fence: string | null;
  readonly holder: { readonly clientId: string; readonly ownerId: string };
  readonly grantedAt: number;
  readonly renewals: number;
  readonly expiresAt: number;
  /** Lease left when the store answered, in ms. */
  readonly ttlMs: number;
  readonly tier: string;
}

/** An rwlock key as `keyState.keys` returns it. */
export interface RwKeyState {
  readonly businessKey: string;
  readonly writer: RwGrantState | null;
  /** Oldest grant first. */
  readonly readers: readonly RwGrantState[];
  /** The fence the current read generation shares; null before any read since the last write. */
  readonly readFence: string | null;
  /** Writers whose intent currently stops new readers (writer preference). */
  readonly waitingWriters: number;
}

/** One read or write grant of a key, for the rwlock table. */
export interface RwGrantRow {
  readonly lockId: string;
  readonly mode: "read" | "write";
  readonly fence: string | null;
  readonly clientId: string;
  readonly ownerId: string;
  /** Granted at, on the store's clock. */
  readonly grantedAtMs: number;
  readonly age: string;
  readonly renewals: number;
  readonly countdown: Countdown;
  readonly tier: string;
}

/** One rwlock key: its writer or its readers, the shared read fence, and waiting writers. */
export interface RwKeyRow {
  readonly businessKey: string;
  /** `write`: a writer holds it; `read`: readers do; `free`: nobody, but writers wait. */
  readonly state: "write" | "read" | "free";
  readonly writer: RwGrantRow | null;
  readonly readers: readonly RwGrantRow[];
  readonly readFence: string | null;
  readonly waitingWriters: number;
}

function rwGrantRow(grant: RwGrantState, receivedAtMs: number, nowMs: number): RwGrantRow {
  return {
    lockId: grant.lockId,
    mode: grant.mode,
    fence: grant.fence,
    clientId: grant.holder.clientId,
    ownerId: grant.holder.ownerId,
    grantedAtMs: grant.grantedAt,
    age: formatAge(
      grant.grantedAt,
      nowMs + storeOffset(grant.expiresAt, grant.ttlMs, receivedAtMs),
    ),
    renewals: grant.renewals,
    countdown: countdown(
      receivedAtMs + grant.ttlMs,
      nowMs,
      Math.max(grant.ttlMs, grant.expiresAt - grant.grantedAt),
    ),
    tier: grant.tier,
  };
}

/**
 * Read-write keys that are held or waited for: keys with waiting writers first (readers are
 * in a writer's way there), then the most readers, then by key; idle keys are left out.
 * Readers oldest first; countdowns run from each grant's `ttlMs` at `receivedAtMs`.
 */
export function rwKeyRows(
  keys: readonly RwKeyState[],
  receivedAtMs: number,
  nowMs: number,
): RwKeyRow[] {
  return keys
    .filter((key) => key.writer !== null || key.readers.length > 0 || key.waitingWriters > 0)
    .map((key) => {
      const readers = [...key.readers]
        .sort((a, b) => a.grantedAt - b.grantedAt)
        .map((grant) => rwGrantRow(grant, receivedAtMs, nowMs));
      const state: RwKeyRow["state"] =
        key.writer !== null ? "write" : readers.length > 0 ? "read" : "free";
      return {
        businessKey: key.businessKey,
        state,
        writer: key.writer === null ? null : rwGrantRow(key.writer, receivedAtMs, nowMs),
        readers,
        readFence: key.readFence,
        waitingWriters: key.waitingWriters,
      };
    })
    .sort(
      (a, b) =>
        b.waitingWriters - a.waitingWriters ||
        b.readers.length - a.readers.length ||
        a.businessKey.localeCompare(b.businessKey),
    );
}
