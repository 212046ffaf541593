import type { Campaign, Leadership } from "@warden/sdk";
import { readComputeWrite, type IterationContext } from "./ledger-iteration.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "Error";
}

function errorMessage(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 300);
}

/**
 * A candidate in the election of the leader account (`warden.campaign` on the ledger
 * resource, key = the account). While it believes it leads it read-compute-writes that
 * account through the same guard as the mutex workers, with the leader's lock: the term
 * is the fence, so a demoted leader's late write (paused past its lease, say) must come
 * back `stale`. Like the mutex workers it never checks the term's signal right before
 * writing: only the fence may stop a zombie.
 *
 * Log lines, in the mutex workers' vocabulary so the checker reads both alike: `acquire`
 * when a campaign round starts (the process start or a demotion), `granted` on election
 * (`fence` = term), `lost` on demotion by a lost lease, `release` on resignation; every
 * write is its own `read`/`write` pair with opId `<worker>.<inc>.L<seq>`.
 */
export async function runLeaderCandidate(
  ctx: IterationContext,
  stopping: () => boolean,
): Promise<void> {
  const { id, inc, leaderAccount: account, resource, waitMs } = ctx.config;
  let round = 0;
  // Set by the callbacks: the term this candidate believes it leads, if any.
  const state: { leading: Leadership | null } = { leading: null };
  const roundOp = () => `${id}.${inc}.c${round}`;
  ctx.log({ ev: "acquire", account, opId: roundOp() });
  let campaign: Campaign | null = null;
  while (!campaign && !stopping()) {
    try {
      campaign = await ctx.warden.campaign(resource, account, {
        waitMs,
        onElected: (term, leadership) => {
          state.leading = leadership;
          ctx.log({
            ev: "granted",
            account,
            opId: roundOp(),
            lockId: leadership.lock.lockId,
            fence: term,
            tier: leadership.lock.tier,
          });
        },
        onDemoted: (reason, term, cause) => {
          const lockId = state.leading?.lock.lockId;
          state.leading = null;
          ctx.log({
            ev: reason === "resigned" ? "release" : "lost",
            account,
            opId: roundOp(),
            ...(lockId ? { lockId } : {}),
            fence: term,
            message: cause === undefined ? reason : errorMessage(cause),
          });
          round += 1;
          if (reason !== "resigned") ctx.log({ ev: "acquire", account, opId: roundOp() });
        },
        onError: (error) =>
          ctx.log({ ev: "error", account, error: errorName(error), message: errorMessage(error) }),
      });
    } catch (error) {
      // The server may be down right now (a fault at start-up): try again shortly.
      ctx.log({ ev: "error", account, error: errorName(error), message: errorMessage(error) });
      await sleep(ctx.rng.int(100, 300));
    }
  }
  for (let seq = 0; !stopping(); ) {
    const lead = state.leading;
    if (!lead) {
      await sleep(20);
      continue;
    }
    const opId = `${id}.${inc}.L${seq}`;
    seq += 1;
    try {
      await readComputeWrite(ctx, lead.lock, account, opId);
    } catch (error) {
      ctx.log({
        ev: "error",
        account,
        opId,
        lockId: lead.lock.lockId,
        error: errorName(error),
        message: errorMessage(error),
      });
    }
    await sleep(ctx.rng.int(40, 120));
  }
  await campaign?.resign();
}
