import { claimFence, type FencedHolder, type Lock, type Warden } from "@warden/sdk";
import type { Pool } from "mysql2/promise";
import { monoNow } from "../log/clock.js";
import type { WorkerEvent, WriteOutcome } from "../log/events.js";
import type { Rng } from "../schedule/rng.js";
import { accountTarget, guardedWrite } from "./guarded-write.js";
import type { WorkerConfig } from "./worker-config.js";

/** Fields of a worker line; the worker adds src, id, incarnation and time stamps. */
export type WorkerLine = Omit<WorkerEvent, "src" | "worker" | "inc" | "mono" | "wall">;

/** What the guards and the ledger need from a lock or a semaphore permit. */
export type GuardHolder = FencedHolder & { readonly signal: AbortSignal };

/** What one iteration needs from its worker process. */
export interface IterationContext {
  readonly config: WorkerConfig;
  readonly warden: Warden;
  readonly pool: Pool;
  readonly rng: Rng;
  readonly log: (line: WorkerLine) => void;
  /** True once: stop right after the next read (the nemesis asked for it). */
  takePauseRequest(): boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "Error";
}

function errorMessage(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 300);
}

/**
 * Read, compute, write under the lock, and record the write in the same transaction.
 * Deliberately never checks `lock.signal` before writing: a real holder can be paused
 * right after such a check, so the guard alone must stop a late write.
 */
export async function readComputeWrite(
  ctx: IterationContext,
  lock: GuardHolder,
  account: string,
  opId: string,
): Promise<void> {
  const base = { account, opId, lockId: lock.lockId };
  if (ctx.config.guard === "rmw") {
    const claim = await claimFence(ctx.pool, lock, accountTarget(account));
    ctx.log({ ev: "claimed", ...base, outcome: claim.outcome, fence: lock.fence });
    if (claim.outcome !== "applied" && claim.outcome !== "duplicate") return;
  }
  const connection = await ctx.pool.getConnection();
  let outcome: WriteOutcome = "error";
  let delta = 0;
  try {
    // Each statement sees the latest committed row, as a typical service's would.
    await connection.query("SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
    await connection.query("START TRANSACTION");
    const [rows] = await connection.execute("SELECT balance FROM account WHERE id = ?", [account]);
    const balance = Number((rows as { balance: number | string }[])[0]?.balance);
    ctx.log({ ev: "read", ...base, balance });
    if (ctx.takePauseRequest()) {
      ctx.log({ ev: "self-pause", ...base });
      // Stops this whole process until the nemesis sends SIGCONT; then writes at once.
      process.kill(process.pid, "SIGSTOP");
    } else {
      await sleep(ctx.rng.int(30, 60));
    }
    delta = ctx.rng.int(1, 9);
    const signalAborted = lock.signal.aborted;
    const mono = monoNow();
    const result = await guardedWrite(ctx.config.guard, connection, lock, account, balance + delta);
    outcome = result.outcome;
    if (outcome === "applied") {
      await connection.execute(
        `INSERT INTO ledger (op_id, account, worker, lock_id, fence, delta, balance_before, balance_after, mono)
         VALUES (?, ?, ?, ?, CAST(? AS UNSIGNED), ?, ?, ?, ?)`,
        [
          opId,
          account,
          ctx.config.id,
          lock.lockId,
          lock.fence,
          delta,
          balance,
          balance + delta,
          mono,
        ],
      );
      await connection.query("COMMIT");
    } else {
      await connection.query("ROLLBACK");
    }
    ctx.log({ ev: "write", ...base, outcome, delta, signalAborted, fence: lock.fence });
  } catch (error) {
    await connection.query("ROLLBACK").catch(() => undefined);
    const refused = errorName(error) === "LockUnavailableError";
    ctx.log({
      ev: "write",
      ...base,
      outcome: refused ? "refused" : "error",
      error: errorName(error),
      message: errorMessage(error),
    });
  } finally {
    connection.release();
  }
}

/** One iteration: acquire an account's lock, read-compute-write it, release. */
export async function ledgerIteration(ctx: IterationContext, seq: number): Promise<void> {
  const account = ctx.rng.pick(ctx.config.accounts);
  const opId = `${ctx.config.id}.${ctx.config.inc}.${seq}`;
  ctx.log({ ev: "acquire", account, opId });
  let lock: Lock;
  try {
    lock = await ctx.warden.acquire(ctx.config.resource, account, { waitMs: ctx.config.waitMs });
  } catch (error) {
    ctx.log({
      ev: "acquire-failed",
      account,
      opId,
      error: errorName(error),
      message: errorMessage(error),
    });
    await sleep(ctx.rng.int(100, 300));
    return;
  }
  ctx.log({
    ev: "granted",
    account,
    opId,
    lockId: lock.lockId,
    fence: lock.fence,
    tier: lock.tier,
  });
  lock.signal.addEventListener(
    "abort",
    () =>
      ctx.log({
        ev: "lost",
        account,
        opId,
        lockId: lock.lockId,
        message: errorMessage(lock.signal.reason),
      }),
    { once: true },
  );
  try {
    await sleep(ctx.rng.int(0, 10));
    await readComputeWrite(ctx, lock, account, opId);
  } catch (error) {
    ctx.log({
      ev: "error",
      account,
      opId,
      lockId: lock.lockId,
      error: errorName(error),
      message: errorMessage(error),
    });
  } finally {
    ctx.log({ ev: "release", account, opId, lockId: lock.lockId });
    await lock.release();
  }
}
