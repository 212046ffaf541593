import type { Pool, PoolConnection, ResultSetHeader, RowDataPacket } from "mysql2/promise";
import {
  FENCE_LAYOUT,
  LockUnavailableError,
  NotHolderError,
  OutcomeUnknownError,
  WardenError,
  newLockId,
  validateLeaseMs,
  validateLockId,
  validateLockKey,
  type LockKey,
} from "@warden/contract";
import { decideRw } from "../../store/rw-decide.js";
import {
  checkRwAcquire,
  checkRwListByKey,
  checkRwWithdrawIntent,
  holdsGrants,
  pageByKey,
  modeMixError,
  mutexHeldError,
  type CheckedRwAcquire,
  type RwAcquireInput,
  type RwAcquireResult,
  type RwExtendInput,
  type RwForceReleaseInput,
  type RwKeyPage,
  type RwKeyView,
  type RwListInput,
  type RwLeaseView,
  type RwLockStore,
  type RwMode,
  type RwReleaseInput,
  type RwReleaseResult,
  type RwWithdrawIntentInput,
} from "../../store/rw-lock-store.js";
import { contended, isDeadlock } from "../deadlock-retry.js";
import { certainlyNotApplied } from "../driver-errors.js";
import { MysqlStoreBase } from "../mysql-store-base.js";
import type { MysqlLockStoreOptions } from "../mysql-store-options.js";
import {
  RW_DROP_GRANT,
  RW_EXTEND,
  RW_FORCE_RELEASE,
  RW_INSERT_GRANT,
  RW_INSPECT,
  RW_LIST_KEYS,
  RW_LOCK_AND_READ,
  RW_LOCK_KEY,
  RW_MINT_FENCE,
  RW_READ_RESULTS,
  RW_REENTER,
  RW_REGISTER_INTENT,
  RW_RELEASE,
  RW_WITHDRAW_INTENT,
} from "./rw-sql.js";

interface GrantRow extends RowDataPacket {
  lock_id: string;
  mode: string;
  client_id: string;
  owner_id: string;
  fence: string;
  reentry: number;
  renewals: number;
  granted_ms: string;
  expires_ms: string;
  ttl_ms: string;
}

interface IntentRow extends RowDataPacket {
  client_id: string;
  owner_id: string;
  ttl_ms: string;
}

interface GuardRow extends RowDataPacket {
  mutex: number;
  tier_epoch: string;
  durable_epoch: string;
  shared_tier: string | null;
}

function viewOf(key: LockKey, row: GrantRow): RwLeaseView {
  return {
    resource: key.resource,
    businessKey: key.businessKey,
    lockId: row.lock_id,
    mode: row.mode as RwMode,
    fence: row.fence,
    holder: { clientId: row.client_id, ownerId: row.owner_id },
    reentry: Number(row.reentry),
    grantedAt: Number(row.granted_ms),
    renewals: Number(row.renewals),
    expiresAt: Number(row.expires_ms),
    ttlMs: Number(row.ttl_ms),
    tier: "mysql",
  };
}

/** One attempt's outcome: an answer, or a reason to renew the tier's epoch and try again. */
type Attempt =
  | { readonly kind: "answer"; readonly result: RwAcquireResult }
  | { readonly kind: "renew-epoch"; readonly reason: string }
  | { readonly kind: "retry" };

const ATTEMPTS = 4;

/**
 * The MySQL tier's read-write locks (decision 0165): `mysql_rw_lock` (one row per key, its
 * read fence and last fence), `mysql_rw_grant` (one row per grant) and `mysql_rw_intent`
 * (waiting writers). Each acquire is one transaction that locks the key's row first, reclaims
 * expired grants and intents, decides ({@link decideRw}) and writes. Fences come from the
 * mutex's sequence and the tier's epochs (decision 0003), under the same guards.
 */
export class MysqlRwLockStore extends MysqlStoreBase implements RwLockStore {
  private constructor(pool: Pool, options: MysqlLockStoreOptions) {
    super(pool, options);
  }

  /** Opens the store's pool and checks that its tables answer. */
  static async open(options: MysqlLockStoreOptions): Promise<MysqlRwLockStore> {
    return new MysqlRwLockStore(await MysqlStoreBase.openPool(options, "mysql_rw_lock"), options);
  }

  acquireRead(input: RwAcquireInput): Promise<RwAcquireResult> {
    return this.acquire("read", input);
  }

  acquireWrite(input: RwAcquireInput): Promise<RwAcquireResult> {
    return this.acquire("write", input);
  }

  private async acquire(mode: RwMode, input: RwAcquireInput): Promise<RwAcquireResult> {
    const checked = checkRwAcquire(input);
    const lockId = newLockId();
    let last: Attempt["kind"] = "retry";
    for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
      await this.epochs.ensureFloor();
      const step = await this.attempt(mode, checked, lockId);
      last = step.kind;
      if (step.kind === "answer") return step.result;
      if (step.kind === "renew-epoch") await this.epochs.renew(step.reason);
      else await new Promise((resolve) => setTimeout(resolve, attempt * 2 + Math.random() * 3));
    }
    // The last attempt deadlocked: the key is contended, MySQL is fine.
    if (last === "retry") throw contended("MySQL tier: the read-write acquire kept deadlocking");
    // Every attempt renewed the tier's epoch and found the durable one moved on again: no
    // fence may be minted yet, as the mutex and the semaphore say in the same case.
    throw new LockUnavailableError("the MySQL tier could not settle on a fencing epoch", {
      reason: "fencing-epoch",
    });
  }

  /** One transaction: lock the key's row, reclaim, decide, write. */
  private async attempt(mode: RwMode, input: CheckedRwAcquire, lockId: string): Promise<Attempt> {
    const { key, holder, leaseMs, writerPreference, intentMs } = input;
    const k = [key.resource, key.businessKey];
    const timeout = this.options.commandTimeoutMs;
    let conn: PoolConnection;
    try {
      conn = await this.pool.getConnection();
    } catch (cause) {
      throw new LockUnavailableError("MySQL tier: no connection", { cause });
    }
    let committing = false;
    let broken = false;
    try {
      await conn.query({ sql: "START TRANSACTION", timeout });
      const [read] = await conn.query<RowDataPacket[][]>({
        sql: RW_LOCK_AND_READ,
        values: [...k, ...k, ...k, ...k, ...k, ...k, ...k],
        timeout,
      });
      const results = read as unknown as unknown[];
      const row = (results[RW_READ_RESULTS.row] as RowDataPacket[])[0] as {
        read_fence: string | null;
        last_fence: string;
      };
      const grants = results[RW_READ_RESULTS.grants] as GrantRow[];
      const intents = results[RW_READ_RESULTS.intents] as IntentRow[];
      const guards = (results[RW_READ_RESULTS.guards] as GuardRow[])[0]!;
      if (Number(guards.mutex) === 1) {
        await conn.query({ sql: "ROLLBACK", timeout });
        throw mutexHeldError();
      }
      const decision = decideRw(
        mode,
        holder,
        writerPreference,
        grants.map((g) => ({
          lockId: g.lock_id,
          mode: g.mode as RwMode,
          holder: { clientId: g.client_id, ownerId: g.owner_id },
          remainingMs: Number(g.ttl_ms),
        })),
        intents.map((i) => ({
          holder: { clientId: i.client_id, ownerId: i.owner_id },
          remainingMs: Number(i.ttl_ms),
        })),
      );
      if (decision.kind === "mode-mix") {
        await conn.query({ sql: "ROLLBACK", timeout });
        throw modeMixError(mode);
      }
      if (decision.kind === "refuse") {
        if (decision.registerIntent) {
          await conn.query({
            sql: RW_REGISTER_INTENT,
            values: [...k, holder.clientId, holder.ownerId, intentMs],
            timeout,
          });
        }
        // The reclaimed rows go with the commit; a lost commit reclaims them next time.
        await conn.query({ sql: "COMMIT", timeout });
        return {
          kind: "answer",
          result: {
            granted: false,
            mode,
            reason: decision.reason,
            holders: decision.holders,
            retryAfterMs: Math.max(1, decision.retryAfterMs),
            tier: "mysql",
          },
        };
      }
      // Granting: the same guards as the mutex's acquire statement (decision 0003).
      if (guards.shared_tier && guards.shared_tier !== "mysql") {
        await conn.query({ sql: "ROLLBACK", timeout });
        throw new LockUnavailableError(
          `the fleet's tier is now ${guards.shared_tier}; the MySQL tier no longer grants`,
          { reason: "tier-change" },
        );
      }
      const tierEpoch = Number(guards.tier_epoch);
      if (tierEpoch === 0 || tierEpoch < Number(guards.durable_epoch)) {
        await conn.query({ sql: "ROLLBACK", timeout });
        return {
          kind: "renew-epoch",
          reason: tierEpoch === 0 ? "first epoch" : "durable epoch moved on",
        };
      }
      let reported: GrantRow | undefined;
      if (decision.kind === "reenter") {
        const [out] = await conn.query<RowDataPacket[][]>({
          sql: RW_REENTER,
          values: [leaseMs, decision.lockId, decision.lockId],
          timeout,
        });
        reported = ((out as unknown as unknown[])[1] as GrantRow[])[0];
      } else {
        let fence = row.read_fence;
        const generationEpoch =
          fence === null ? -1 : Number(BigInt(fence) / BigInt(FENCE_LAYOUT.counterSpan));
        if (mode === "write" || fence === null || generationEpoch !== tierEpoch) {
          const [minted] = await conn.query<RowDataPacket[][]>({
            sql: RW_MINT_FENCE,
            values: [row.last_fence],
            timeout,
          });
          fence =
            ((minted as unknown as unknown[])[1] as { fence: string | null }[])[0]?.fence ?? null;
          if (fence === null) {
            await conn.query({ sql: "ROLLBACK", timeout });
            return { kind: "renew-epoch", reason: "fence guard failed (epoch or counter)" };
          }
        }
        const [out] = await conn.query<RowDataPacket[][]>({
          sql: RW_INSERT_GRANT,
          values: [
            ...[...k, lockId, mode, holder.clientId, holder.ownerId, fence, leaseMs],
            ...[fence, mode, fence, ...k],
            ...[...k, holder.clientId, holder.ownerId],
            lockId,
          ],
          timeout,
        });
        reported = ((out as unknown as unknown[])[3] as GrantRow[])[0];
      }
      committing = true;
      await conn.query({ sql: "COMMIT", timeout });
      if (!reported) throw new Error("the grant row was not reported");
      return {
        kind: "answer",
        result: { ...viewOf(key, reported), granted: true, reentered: decision.kind === "reenter" },
      };
    } catch (error) {
      if (error instanceof WardenError) throw error;
      broken = true;
      if (isDeadlock(error)) return { kind: "retry" };
      if (certainlyNotApplied(error) && !committing) {
        throw new LockUnavailableError("MySQL tier: read-write acquire failed", { cause: error });
      }
      // The commit may have happened: end the grant by its lockId (a re-entry keeps its
      // older lockId and is left to expire), then say the outcome is unknown.
      await this.pool
        .execute({ sql: RW_DROP_GRANT, values: [lockId], timeout })
        .catch(() => undefined);
      throw new OutcomeUnknownError(lockId, "acquire", { cause: error });
    } finally {
      // A connection whose transaction failed midway is not handed back.
      if (broken) conn.destroy();
      else conn.release();
    }
  }

  async release(input: RwReleaseInput): Promise<RwReleaseResult> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const lockId = validateLockId(input.lockId);
    const out = await this.run("release", key, lockId, RW_RELEASE, [
      lockId,
      key.resource,
      key.businessKey,
      lockId,
      lockId,
    ]);
    const changed = (out[0] as ResultSetHeader).affectedRows;
    const row = (out[1] as GrantRow[])[0];
    if (changed === 0 || !row) throw new NotHolderError(lockId, "expired");
    const reentry = Number(row.reentry);
    return { released: reentry === 0, reentry, mode: row.mode as RwMode, fence: row.fence };
  }

  async extend(input: RwExtendInput): Promise<RwLeaseView> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const lockId = validateLockId(input.lockId);
    const leaseMs = validateLeaseMs(input.leaseMs);
    const out = await this.run("extend", key, lockId, RW_EXTEND, [
      leaseMs,
      lockId,
      key.resource,
      key.businessKey,
      lockId,
    ]);
    const row = (out[1] as GrantRow[])[0];
    if ((out[0] as ResultSetHeader).affectedRows === 0 || !row) {
      throw new NotHolderError(lockId, "expired");
    }
    return viewOf(key, row);
  }

  async inspect(input: LockKey): Promise<RwKeyView | null> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const k = [key.resource, key.businessKey];
    const [out] = await this.pool.query<RowDataPacket[][]>({
      sql: RW_INSPECT,
      values: [...k, ...k, ...k],
      timeout: this.options.commandTimeoutMs,
    });
    const grants = (out[0] as GrantRow[]).map((g) => viewOf(key, g));
    const facts = (out[1] as { read_fence: string | null; intents: number | string }[])[0];
    const waitingWriters = Number(facts?.intents ?? 0);
    if (grants.length === 0 && waitingWriters === 0) return null;
    return {
      ...key,
      writer: grants.find((g) => g.mode === "write") ?? null,
      readers: grants.filter((g) => g.mode === "read"),
      readFence: facts?.read_fence ?? null,
      waitingWriters,
      tier: "mysql",
    };
  }

  /** True when any key has a live read-write grant in MySQL (the recovery drain asks). */
  async hasLiveGrants(): Promise<boolean> {
    const [rows] = await this.pool.query<RowDataPacket[]>({
      sql: "SELECT 1 FROM mysql_rw_grant WHERE expires_at > NOW(3) LIMIT 1",
      timeout: this.options.commandTimeoutMs,
    });
    return rows.length > 0;
  }

  /** The resource's keys with a live grant, in key order, `limit` keys a page. */
  async list(input: RwListInput): Promise<RwKeyPage> {
    const { resource, after, limit } = checkRwListByKey(input);
    const [rows] = await this.pool.query<RowDataPacket[]>({
      sql: RW_LIST_KEYS,
      values: [resource, after ?? "", limit + 1],
      timeout: this.options.commandTimeoutMs,
    });
    const businessKeys = rows.map((row) => String(row["business_key"]));
    return pageByKey(resource, businessKeys, limit, (key) => this.inspect(key), holdsGrants);
  }

  async forceRelease(input: RwForceReleaseInput): Promise<RwLeaseView[]> {
    const key = validateLockKey({ resource: input.resource, businessKey: input.businessKey });
    const lockId = input.lockId === undefined ? "" : validateLockId(input.lockId);
    const timeout = this.options.commandTimeoutMs;
    let conn: PoolConnection;
    try {
      conn = await this.pool.getConnection();
    } catch (cause) {
      throw new LockUnavailableError("MySQL tier: no connection", { cause });
    }
    let broken = false;
    try {
      await conn.query({ sql: "START TRANSACTION", timeout });
      await conn.query({ sql: RW_LOCK_KEY, values: [key.resource, key.businessKey], timeout });
      const k = [key.resource, key.businessKey, lockId, lockId];
      const [out] = await conn.query<RowDataPacket[][]>({
        sql: RW_FORCE_RELEASE,
        values: [...k, ...k],
        timeout,
      });
      await conn.query({ sql: "COMMIT", timeout });
      return (out[0] as GrantRow[]).map((g) => viewOf(key, g));
    } catch (cause) {
      broken = true;
      throw new LockUnavailableError("MySQL tier: force-release failed", { cause });
    } finally {
      if (broken) conn.destroy();
      else conn.release();
    }
  }

  /** Deletes the holder's `mysql_rw_intent` row, in a transaction that locks the key first. */
  async withdrawIntent(input: RwWithdrawIntentInput): Promise<boolean> {
    const { key, holder } = checkRwWithdrawIntent(input);
    const row = [key.resource, key.businessKey, holder.clientId, holder.ownerId];
    const out = await this.run("withdraw-intent", key, "", RW_WITHDRAW_INTENT, [...row, ...row]);
    return Number((out[0] as { live: number | string }[])[0]?.live ?? 0) > 0;
  }

  /**
   * Runs release, extend or an intent's withdrawal in one transaction that locks the key's
   * row first; a deadlock (rolled back whole) is retried, any other failure becomes a typed
   * error. A withdrawal whose outcome is unknown is `LockUnavailableError`, not
   * `OutcomeUnknownError`: withdrawing again is harmless, and the intent lapses by itself.
   */
  private async run(
    operation: "release" | "extend" | "withdraw-intent",
    key: LockKey,
    lockId: string,
    sql: string,
    values: (string | number)[],
  ): Promise<unknown[]> {
    const timeout = this.options.commandTimeoutMs;
    for (let attempt = 1; ; attempt += 1) {
      let conn: PoolConnection;
      try {
        conn = await this.pool.getConnection();
      } catch (cause) {
        throw new LockUnavailableError(`MySQL tier: ${operation}: no connection`, { cause });
      }
      let committing = false;
      let broken = false;
      try {
        await conn.query({ sql: "START TRANSACTION", timeout });
        await conn.query({ sql: RW_LOCK_KEY, values: [key.resource, key.businessKey], timeout });
        const [out] = await conn.query<RowDataPacket[][]>({ sql, values, timeout });
        committing = true;
        await conn.query({ sql: "COMMIT", timeout });
        return out;
      } catch (error) {
        broken = true;
        if (isDeadlock(error) && !committing) {
          if (attempt >= ATTEMPTS) {
            throw contended(`MySQL tier: ${operation} deadlocked on every attempt`);
          }
          await new Promise((resolve) => setTimeout(resolve, attempt * 2 + Math.random() * 3));
          continue;
        }
        if ((certainlyNotApplied(error) && !committing) || operation === "withdraw-intent") {
          throw new LockUnavailableError(`MySQL tier: ${operation} failed`, { cause: error });
        }
        throw new OutcomeUnknownError(lockId, operation, { cause: error });
      } finally {
        if (broken) conn.destroy();
        else conn.release();
      }
    }
  }
}
