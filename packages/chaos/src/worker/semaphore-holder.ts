import type { Permit } from "@warden/sdk";
import { readComputeWrite, type IterationContext } from "./ledger-iteration.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "Error";
}

function errorMessage(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 300);
}

/**
 * The slot whose claim is oldest (smallest fence, never-claimed first): a new permit
 * holder takes over that slot, so the two slots always carry the two newest claims and a
 * holder whose permit lapsed (its slot taken by a newer fence) is refused as stale.
 */
async function oldestSlot(ctx: IterationContext): Promise<string> {
  const slots = ctx.config.semaphoreSlots;
  const [rows] = await ctx.pool.query(
    `SELECT id FROM account WHERE id IN (${slots.map(() => "?").join(",")})
      ORDER BY fence IS NOT NULL, fence, id LIMIT 1`,
    [...slots],
  );
  return (rows as { id: string }[])[0]?.id ?? slots[0]!;
}

/**
 * One permit iteration (decision 0172): take one permit of the semaphore key (total 2),
 * pick the slot with the oldest claim and read-compute-write it twice through the same
 * guard as the mutex workers with the permit's fence (`claimFence` takes the slot over
 * only with a larger fence), then release. The two writes make each holder's accepted
 * stretch an interval on the ledger database's clock, which the checker counts: never
 * more than `permits` at once.
 */
export async function semaphoreIteration(ctx: IterationContext, seq: number): Promise<void> {
  const key = ctx.config.semaphoreKey;
  const opId = `${ctx.config.id}.${ctx.config.inc}.${seq}`;
  ctx.log({ ev: "acquire", account: key, opId });
  let permit: Permit;
  try {
    permit = await ctx.warden
      .semaphore(ctx.config.semaphoreResource, key)
      .acquire({ permits: 1, waitMs: ctx.config.waitMs });
  } catch (error) {
    ctx.log({
      ev: "acquire-failed",
      account: key,
      opId,
      error: errorName(error),
      message: errorMessage(error),
    });
    await sleep(ctx.rng.int(100, 300));
    return;
  }
  ctx.log({
    ev: "granted",
    account: key,
    opId,
    lockId: permit.lockId,
    fence: permit.fence,
    tier: permit.tier,
  });
  permit.signal.addEventListener(
    "abort",
    () =>
      ctx.log({
        ev: "lost",
        account: key,
        opId,
        lockId: permit.lockId,
        message: errorMessage(permit.signal.reason),
      }),
    { once: true },
  );
  try {
    const slot = await oldestSlot(ctx);
    for (const part of ["a", "b"]) {
      await readComputeWrite(ctx, permit, slot, `${opId}${part}`);
    }
  } catch (error) {
    ctx.log({
      ev: "error",
      account: key,
      opId,
      lockId: permit.lockId,
      error: errorName(error),
      message: errorMessage(error),
    });
  } finally {
    ctx.log({ ev: "release", account: key, opId, lockId: permit.lockId });
    await permit.release().catch((error: unknown) =>
      ctx.log({
        ev: "error",
        account: key,
        opId,
        error: errorName(error),
        message: errorMessage(error),
      }),
    );
  }
}
