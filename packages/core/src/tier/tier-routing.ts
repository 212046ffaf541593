import { performance } from "node:perf_hooks";
import { InvalidArgumentError, LockUnavailableError, type Tier } from "@warden/contract";

/**
 * Tier routing shared by TieredLocks, TieredSemaphores and TieredRwLocks (decision 0179):
 * which tiers a resource's policy lets grant, in which order the tiers are searched, and
 * the recovery drain after a return to Redis.
 */

/** The parts of a resource's policy that decide where it may be granted. */
export interface ResourcePolicy {
  /** May move to MySQL when Redis is down. */
  readonly degrade: boolean;
  /** `allow`: in-process locks when no shared tier can grant (fail-open); `deny`: refuse. */
  readonly localFallback: "deny" | "allow";
  /** Replicas that must acknowledge a Redis grant. */
  readonly waitReplicas: number;
}

/**
 * Throws `LockUnavailableError` when `policy` forbids granting on `tier`: MySQL for a
 * resource that does not degrade, local for one that fails closed (docs/design.md#fail-closed).
 */
export function checkTierAllowed(tier: Tier, policy: ResourcePolicy): void {
  if (tier === "mysql" && !policy.degrade) {
    throw new LockUnavailableError("Redis is down and this resource does not degrade to MySQL", {
      reason: "fail-closed",
    });
  }
  if (tier === "local" && policy.localFallback !== "allow") {
    throw new LockUnavailableError(
      "no tier can grant with cross-process exclusion (fail-closed resource)",
      { reason: "fail-closed" },
    );
  }
}

/** The tier in force first, then the others (redis, mysql, local): where to look for a key. */
export function searchOrder(current: Tier): Tier[] {
  const order: Tier[] = [current, "redis", "mysql", "local"];
  return order.filter((tier, index) => order.indexOf(tier) === index);
}

/**
 * The drain's clock: monotonic. Its deadlines are durations (a bound from the last answer),
 * and a wall-clock step on this host must neither end a drain early (Redis would grant a key
 * MySQL still leases and renews) nor stretch it.
 */
const drainNow = (): number => performance.now();

/** How often a recovery drain asks MySQL whether it still holds anything live, in ms. */
export const DRAIN_CHECK_MS = 250;

/**
 * One recovery drain after a return to Redis (docs/decisions/0005): from {@link start}, it
 * is active until MySQL holds nothing live of its kind (leases, grants, lock-delays), asked
 * every {@link DRAIN_CHECK_MS}. An answer that sees something live pushes the end to
 * `boundMs` from now; none ends it at once (nothing new can appear: MySQL grants only while
 * the shared tier says mysql). Without an answer, it ends `boundMs` after the last answer
 * that saw something live — what MySQL holds cannot outlast that without MySQL.
 */
export class RecoveryDrain {
  private untilMs = 0;
  /** Bumped by every start, so a check begun for an older drain is ignored. */
  private generation = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly hasLive: () => Promise<boolean>,
    private readonly boundMs: number,
    /** False once the checks no longer matter (the fleet left Redis again). */
    private readonly onRedis: () => boolean,
  ) {}

  /** True while the drain holds. */
  get active(): boolean {
    return drainNow() < this.untilMs;
  }

  /** Starts (or restarts) the drain: active for at most `boundMs` unless an answer extends it. */
  start(): void {
    this.generation += 1;
    this.untilMs = drainNow() + this.boundMs;
    this.stop();
    this.timer = setInterval(() => void this.check(), DRAIN_CHECK_MS);
    this.timer.unref();
    // Asked at once too: with nothing live the drain ends on the first answer, before a
    // MySQL outage soon after a start or a return could leave it unable to end (fail closed).
    void this.check();
  }

  /** Stops the checks (on close, or once the drain is over). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async check(): Promise<void> {
    const generation = this.generation;
    if (!this.active || !this.onRedis()) {
      this.stop();
      return;
    }
    const live = await this.hasLive().catch(() => null);
    if (generation !== this.generation || live === null) return;
    if (live) {
      this.untilMs = Math.max(this.untilMs, drainNow() + this.boundMs);
    } else {
      this.untilMs = 0;
      this.stop();
    }
  }
}

/**
 * Asks each tier in `order` (see {@link searchOrder}) in turn and returns the first answer
 * that is not null. The tier in force (`current`) must answer: when it failed and no tier
 * found anything, "not held" would be a guess, so it is LOCK_UNAVAILABLE naming the tier
 * (docs/decisions/0200). Another tier that fails counts as having none: it is asked only
 * for what a tier switch left behind, and while Redis is down it cannot answer at all.
 * Bad input is refused as such.
 */
export async function firstFound<T>(
  order: readonly Tier[],
  current: Tier,
  ask: (tier: Tier) => Promise<T | null>,
): Promise<T | null> {
  for (const [, found] of await answersOf(order, current, ask, (found) => found !== null)) {
    if (found) return found;
  }
  return null;
}

/**
 * Asks each tier in `order` in turn and returns the answers of the tiers that gave one, in
 * that order, up to and including the first for which `enough` is true. The rule of
 * {@link firstFound}: bad input is refused as such; when the tier in force (`current`)
 * failed and no answer was `enough`, LOCK_UNAVAILABLE; another tier's failure is skipped.
 */
export async function answersOf<T>(
  order: readonly Tier[],
  current: Tier,
  ask: (tier: Tier) => Promise<T>,
  enough: (answer: T) => boolean = () => false,
): Promise<[Tier, T][]> {
  const answers: [Tier, T][] = [];
  let unanswered: { error: unknown } | undefined;
  for (const tier of order) {
    let answer: T;
    try {
      answer = await ask(tier);
    } catch (error) {
      if (error instanceof InvalidArgumentError) throw error;
      if (tier === current) unanswered = { error };
      continue;
    }
    answers.push([tier, answer]);
    if (enough(answer)) return answers;
  }
  if (unanswered) refuseUnknownState(current, unanswered.error);
  return answers;
}

/** The refusal of {@link firstFound} when the tier in force did not answer. */
export function refuseUnknownState(tier: Tier, cause: unknown): never {
  throw new LockUnavailableError(
    `the ${tier} tier did not answer, so whether the key is held is unknown; retry when it is reachable`,
    { cause },
  );
}

/**
 * What a force release does when nothing was removed but a tier failed: bad input is
 * refused as such; otherwise the caller must not read "nothing removed" as "not held" —
 * the tier that did not answer may hold the key — so it is LOCK_UNAVAILABLE naming it.
 */
function refuseUnanswered(failures: readonly { tier: Tier; error: unknown }[]): never {
  const invalid = failures.find((failure) => failure.error instanceof InvalidArgumentError);
  if (invalid) throw invalid.error;
  const tiers = failures.map((failure) => failure.tier).join(" and ");
  throw new LockUnavailableError(
    `force release removed nothing, and the ${tiers} tier did not answer: it may still hold the key; retry when it is reachable`,
    { cause: failures[0]!.error },
  );
}

/**
 * A force release over the tiers in `order`: the first tier that removes something wins (a
 * mutex lease lives in one tier). Nothing removed while a tier failed is an error, not
 * "nothing held" (see {@link refuseUnanswered}).
 */
export async function firstRemoved<T>(
  order: readonly Tier[],
  remove: (tier: Tier) => Promise<T | null>,
): Promise<T | null> {
  const failures: { tier: Tier; error: unknown }[] = [];
  for (const tier of order) {
    try {
      const removed = await remove(tier);
      if (removed) return removed;
    } catch (error) {
      failures.push({ tier, error });
    }
  }
  return failures.length === 0 ? null : refuseUnanswered(failures);
}

/**
 * A force release of grants over every tier in `order`, joined. When some tier removed
 * grants they are returned (to be audited) even if another tier failed — that tier's
 * grants, if any, stay until their TTL or another force release; nothing removed while a
 * tier failed is an error (see {@link refuseUnanswered}).
 */
export async function allRemoved<T>(
  order: readonly Tier[],
  remove: (tier: Tier) => Promise<readonly T[]>,
): Promise<T[]> {
  const removed: T[] = [];
  const failures: { tier: Tier; error: unknown }[] = [];
  for (const tier of order) {
    try {
      removed.push(...(await remove(tier)));
    } catch (error) {
      failures.push({ tier, error });
    }
  }
  return removed.length > 0 || failures.length === 0 ? removed : refuseUnanswered(failures);
}

/** Input of a tiered key list: one tier's keys, or every tier's in turn. */
export interface TieredListInput {
  readonly resource: string;
  readonly cursor?: string;
  readonly limit?: number;
  /** Only this tier; without it the current tier, then the others (see {@link searchOrder}). */
  readonly tier?: Tier;
}

/** One store's page of a key list. */
export interface StoreKeyPage<View> {
  readonly keys: View[];
  readonly cursor: string | null;
}

const TIERS: readonly Tier[] = ["redis", "mysql", "local"];

/** The tiers a list cursor still has to visit: distinct known tiers, at least one. */
function parseTierWalk(text: string): Tier[] {
  const tiers = text.split(",") as Tier[];
  if (!tiers.every((tier, index) => TIERS.includes(tier) && tiers.indexOf(tier) === index))
    throw new InvalidArgumentError("cursor", "is not a cursor from a previous page");
  return tiers;
}

/**
 * A resource's keys with live grants, as the tiers' stores list them (decisions 0185,
 * 0217). With `tier`, that tier's pages. Without it, the tiers in search order (the current
 * one first), one tier per page. The cursor `<tiers>:<store cursor>` carries the walk: the
 * tiers still to visit, comma-separated, the one being paged first (`<store cursor>` empty
 * at the start of it). The order is fixed by the first page, so a tier switch between two
 * pages neither skips a tier nor walks one twice. A tier that cannot answer is skipped,
 * unless it is the current one or the one named.
 */
export async function listAcrossTiers<View>(
  input: TieredListInput,
  current: () => Tier,
  list: (
    tier: Tier,
    input: { readonly resource: string; readonly cursor?: string; readonly limit?: number },
  ) => Promise<StoreKeyPage<View>>,
): Promise<StoreKeyPage<View> & { readonly tier: Tier }> {
  if (input.tier !== undefined) {
    const page = await list(input.tier, input);
    return { ...page, tier: input.tier };
  }
  let order = searchOrder(current());
  let inner: string | undefined;
  if (input.cursor !== undefined) {
    const cut = input.cursor.indexOf(":");
    order = parseTierWalk(cut > 0 ? input.cursor.slice(0, cut) : "");
    const rest = input.cursor.slice(cut + 1);
    inner = rest === "" ? undefined : rest;
  }
  for (let index = 0; index < order.length; index += 1, inner = undefined) {
    const tier = order[index]!;
    const asked = { resource: input.resource, ...(inner === undefined ? {} : { cursor: inner }) };
    const page = await list(
      tier,
      input.limit === undefined ? asked : { ...asked, limit: input.limit },
    ).catch((error: unknown) => {
      if (tier === current() || error instanceof InvalidArgumentError) throw error;
      return null;
    });
    if (!page) continue;
    const next =
      page.cursor !== null
        ? `${order.slice(index).join(",")}:${page.cursor}`
        : index + 1 < order.length
          ? `${order.slice(index + 1).join(",")}:`
          : null;
    return { keys: page.keys, cursor: next, tier };
  }
  return { keys: [], cursor: null, tier: current() };
}
