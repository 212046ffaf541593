import {
  InvalidArgumentError,
  LIMITS,
  validateHolder,
  validateLeaseMs,
  validateWaitReplicas,
  validateLockKey,
  validatePageSize,
  validateResource,
  type Holder,
  type LeaseView,
  type LockKey,
  type Tier,
} from "@warden/contract";

/** The two kinds of grant of a read-write lock. */
export type RwMode = "read" | "write";

/**
 * Input of {@link RwLockStore.acquireRead} and {@link RwLockStore.acquireWrite}.
 *
 * Writer preference (default on): a writer refused because the key is held registers its
 * intent in the store, kept for `intentMs` past each attempt; while a live intent exists,
 * readers asking with writer preference are refused, so a stream of readers cannot starve
 * a waiting writer. A writer asking without it registers nothing; a reader asking without
 * it ignores intents.
 */
export interface RwAcquireInput extends LockKey {
  readonly holder: Holder;
  /** Lease length in ms; an integer in 1..`LIMITS.maxLeaseMs`. */
  readonly leaseMs: number;
  /** @defaultValue true */
  readonly writerPreference?: boolean;
  /**
   * Writers only: how long a refused writer's intent blocks new readers without another
   * attempt, in ms (1..`LIMITS.maxLeaseMs`). @defaultValue {@link RW_DEFAULTS.intentMs}
   */
  readonly intentMs?: number;
  /**
   * Replicas that must acknowledge the grant (Redis `WAIT`) before it counts; a grant
   * that is not acknowledged in time is undone and the acquire fails with
   * `ReplicationTimeoutError`. Ignored by tiers without replicas. @defaultValue 0
   */
  readonly waitReplicas?: number;
}

/** Defaults of the read-write lock inputs. */
export const RW_DEFAULTS = Object.freeze({
  writerPreference: true,
  /** A waiting writer that retries at least every second keeps its intent alive. */
  intentMs: 2_000,
});

/** A live read or write grant. `fence` is null only on the local tier. */
export interface RwLeaseView extends LeaseView {
  readonly mode: RwMode;
}

/** A successful acquire; `reentered` when the same holder entered again in the same mode. */
export interface RwGrant extends RwLeaseView {
  readonly granted: true;
  readonly reentered: boolean;
}

/**
 * Why an acquire was refused: `write-held` (a live writer), `read-held` (live readers; writes
 * only), `writer-waiting` (a reader with writer preference while a writer's intent is live).
 */
export type RwRefusalReason = "write-held" | "read-held" | "writer-waiting";

/** A refused acquire; nothing but the writer's intent was written. */
export interface RwRefusal {
  readonly granted: false;
  readonly mode: RwMode;
  readonly reason: RwRefusalReason;
  /** Who holds the key (the writer, or the readers); empty for `writer-waiting`. */
  readonly holders: Holder[];
  /**
   * When trying again can first succeed, in ms: the soonest end of a blocking lease (or of
   * the blocking intent). A hint, not a promise: blockers may be extended.
   */
  readonly retryAfterMs: number;
  readonly tier: Tier;
}

export type RwAcquireResult = RwGrant | RwRefusal;

/** Input of release and extend: the grant's key and lockId. */
export interface RwReleaseInput extends LockKey {
  readonly lockId: string;
}

/** Result of a release: `released` is true once the grant is gone (its reentry count hit 0). */
export interface RwReleaseResult {
  readonly released: boolean;
  readonly reentry: number;
  readonly mode: RwMode;
  readonly fence: string | null;
  /**
   * Whether a caller refused the key may be waiting for this release elsewhere (another
   * server instance): false when the store knows nobody was refused since the mark was last
   * taken, so the release need not be announced beyond this process. Only the Redis store
   * tracks it (decision 0206); absent means unknown: announce.
   */
  readonly watched?: boolean;
}

export interface RwExtendInput extends RwReleaseInput {
  /** New remaining lease in ms from now (store clock); integer in 1..`LIMITS.maxLeaseMs`. */
  readonly leaseMs: number;
}

/** What {@link RwLockStore.inspect} sees on a key; null from inspect when nothing is live. */
export interface RwKeyView extends LockKey {
  readonly writer: RwLeaseView | null;
  /** Live readers, oldest grant first. */
  readonly readers: RwLeaseView[];
  /** The read generation's shared fence, once a read was granted since the last write. */
  readonly readFence: string | null;
  /** Live writer intents (writer preference). */
  readonly waitingWriters: number;
  readonly tier: Tier;
}

/**
 * Input of {@link RwLockStore.withdrawIntent}: the key and the writer (its holder) whose
 * intent is withdrawn.
 */
export interface RwWithdrawIntentInput extends LockKey {
  readonly holder: Holder;
}

/** Input of {@link RwLockStore.forceRelease}: every grant of the key, or only `lockId`. */
export interface RwForceReleaseInput extends LockKey {
  readonly lockId?: string;
}

/**
 * Input of {@link RwLockStore.list}: one resource's keys with live grants, a page at a time.
 * `cursor` comes from the previous page of the same store; `limit` is how many keys a page
 * looks at (1..`LIMITS.maxPageSize`, default 100).
 */
export interface RwListInput {
  readonly resource: string;
  readonly cursor?: string;
  readonly limit?: number;
}

/**
 * A page of {@link RwLockStore.list}: the keys holding at least one live grant, each as
 * `inspect` sees it, and the cursor of the next page (null at the end). A page may hold
 * fewer keys than `limit` (keys whose grants ended meanwhile are left out) while the
 * cursor is not null yet.
 */
export interface RwKeyPage {
  readonly keys: RwKeyView[];
  readonly cursor: string | null;
}

/**
 * A read-write lock per key: many readers or one writer, on every tier (decision 0165).
 * Every check-then-act is atomic in the store (one Lua script, one MySQL transaction that
 * locks the key's row, one synchronous in-process step); expired grants and intents are
 * reclaimed inside those steps, not by a sweeper.
 *
 * Fences (the rule the conformance suite checks): a write grant takes a fresh fence, larger
 * than every fence granted on the key before it; a read grant takes the key's read fence
 * when one was set since the last write grant in the same epoch, else a fresh one that
 * becomes it. So every read fence exceeds every earlier write fence, readers with no write
 * between them share one fence, and a writer's fence exceeds every earlier reader's.
 *
 * Errors: `InvalidArgumentError` for bad input, for a holder that asks for the other mode
 * than it holds (no upgrade or downgrade), and for a key held as a mutex (nothing changed);
 * `NotHolderError` when release/extend present a lockId that holds nothing on the key;
 * `OutcomeUnknownError` when an acquire's reply was lost; `LockUnavailableError` when the
 * store cannot grant safely.
 */
export interface RwLockStore {
  readonly tier: Tier;
  acquireRead(input: RwAcquireInput): Promise<RwAcquireResult>;
  acquireWrite(input: RwAcquireInput): Promise<RwAcquireResult>;
  /** One entry of the grant; the grant ends when its last entry goes. */
  release(input: RwReleaseInput): Promise<RwReleaseResult>;
  extend(input: RwExtendInput): Promise<RwLeaseView>;
  inspect(key: LockKey): Promise<RwKeyView | null>;
  /** Removes the key's grants (or only `lockId`'s) whatever their holder; returns them. */
  forceRelease(input: RwForceReleaseInput): Promise<RwLeaseView[]>;
  /**
   * Withdraws `holder`'s writer intent on the key (a writer that stopped waiting without a
   * grant), so new readers are no longer held back until it lapses. Only that holder's
   * intent goes: never a grant, never another holder's intent. Idempotent; true when a
   * live intent was removed, false when there was none.
   */
  withdrawIntent(input: RwWithdrawIntentInput): Promise<boolean>;
  /**
   * The resource's keys that hold a live grant, as the store sees them (decision 0185):
   * the store decides what is listed, from its own state, so holder lists and a resource's
   * retirement need no record kept elsewhere. Keys with only a writer's intent are left out.
   */
  list(input: RwListInput): Promise<RwKeyPage>;
  close(): Promise<void>;
}

/** A checked {@link RwListInput}: `after` is the last key of the previous page, if any. */
export interface CheckedRwList {
  readonly resource: string;
  readonly after: string | null;
  readonly limit: number;
}

/**
 * Validates a list input of a store whose pages follow the business keys' order (MySQL,
 * local): the cursor is the previous page's last key, base64url-encoded.
 */
export function checkRwListByKey(input: RwListInput): CheckedRwList {
  if (typeof input !== "object" || input === null) {
    throw new InvalidArgumentError("input", "must be an object");
  }
  const resource = validateResource(input.resource);
  const limit = validatePageSize(input.limit);
  if (input.cursor === undefined) return { resource, after: null, limit };
  if (typeof input.cursor !== "string" || !/^[A-Za-z0-9_-]{2,300}$/.test(input.cursor)) {
    throw new InvalidArgumentError("cursor", "is not a cursor from a previous page");
  }
  const after = Buffer.from(input.cursor, "base64url").toString("utf8");
  if (after.length === 0 || Buffer.from(after, "utf8").toString("base64url") !== input.cursor) {
    throw new InvalidArgumentError("cursor", "is not a cursor from a previous page");
  }
  return { resource, after, limit };
}

/** The cursor after `businessKey` (see {@link checkRwListByKey}). */
export function rwKeyCursor(businessKey: string): string {
  return Buffer.from(businessKey, "utf8").toString("base64url");
}

/**
 * One page of a store that lists in business-key order (MySQL, local): `businessKeys` are
 * the resource's keys after the cursor, sorted, at least `limit + 1` of them when more
 * follow. The first `limit` are inspected and those `holds` keeps are the page; the cursor
 * is the last inspected key's when more follow.
 */
export async function pageByKey<View, Kept extends View>(
  resource: string,
  businessKeys: readonly string[],
  limit: number,
  inspect: (key: LockKey) => Promise<View>,
  holds: (view: View) => view is Kept,
): Promise<{ keys: Kept[]; cursor: string | null }> {
  const page = businessKeys.slice(0, limit);
  const views: View[] = await Promise.all(
    page.map((businessKey) => inspect({ resource, businessKey })),
  );
  return {
    keys: views.filter(holds),
    cursor: businessKeys.length > limit ? rwKeyCursor(page[page.length - 1]!) : null,
  };
}

/** True when the key view holds a live grant (a writer or a reader). */
export function holdsGrants(view: RwKeyView | null): view is RwKeyView {
  return view !== null && (view.writer !== null || view.readers.length > 0);
}

/** Validates a {@link RwWithdrawIntentInput} (every field, before anything is written). */
export function checkRwWithdrawIntent(input: RwWithdrawIntentInput): {
  readonly key: LockKey;
  readonly holder: Holder;
} {
  if (typeof input !== "object" || input === null) {
    throw new InvalidArgumentError("input", "must be an object");
  }
  const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
  return { key, holder: validateHolder(input.holder) };
}

/** A checked acquire input with defaults applied. */
export interface CheckedRwAcquire {
  readonly key: LockKey;
  readonly holder: Holder;
  readonly leaseMs: number;
  readonly writerPreference: boolean;
  readonly intentMs: number;
  readonly waitReplicas: number;
}

/** Validates an acquire input (every field, before anything is written). */
export function checkRwAcquire(input: RwAcquireInput): CheckedRwAcquire {
  if (typeof input !== "object" || input === null) {
    throw new InvalidArgumentError("input", "must be an object");
  }
  const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
  const holder = validateHolder(input.holder);
  const leaseMs = validateLeaseMs(input.leaseMs);
  const writerPreference = input.writerPreference ?? RW_DEFAULTS.writerPreference;
  if (typeof writerPreference !== "boolean") {
    throw new InvalidArgumentError("writerPreference", "must be a boolean");
  }
  const intentMs = input.intentMs ?? RW_DEFAULTS.intentMs;
  if (
    typeof intentMs !== "number" ||
    !Number.isInteger(intentMs) ||
    intentMs < 1 ||
    intentMs > LIMITS.maxLeaseMs
  ) {
    throw new InvalidArgumentError("intentMs", `must be an integer in 1..${LIMITS.maxLeaseMs}`);
  }
  const waitReplicas = validateWaitReplicas(input.waitReplicas);
  return { key, holder, leaseMs, writerPreference, intentMs, waitReplicas };
}

/** The error for a holder that asks for one mode while it holds the key in the other. */
export function modeMixError(wanted: RwMode): InvalidArgumentError {
  const held = wanted === "read" ? "write" : "read";
  return new InvalidArgumentError(
    "mode",
    `the holder already holds this key for ${held}; release it before asking for ${wanted} (no upgrade or downgrade)`,
  );
}

/** The error for a read-write acquire on a key held as a plain (mutex) lock. */
export function mutexHeldError(): InvalidArgumentError {
  return new InvalidArgumentError(
    "businessKey",
    "is held as a mutex lock; one key is either a mutex or a read-write lock",
  );
}
