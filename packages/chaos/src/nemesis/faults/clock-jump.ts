import type { WardenServer } from "../../stack/warden-server.js";
import type { FaultContext } from "../fault-context.js";

/** libfaketime re-reads its file about every second; give a step this long to show. */
const SETTLE_MS = 5_000;
/** The Date header has whole seconds: a skew within this of the target is the step. */
const MATCH_MS = 2_000;

/** The server's wall clock minus ours, from its HTTP Date header (±1 s), or null. */
async function skewOf(server: WardenServer): Promise<number | null> {
  try {
    const sentAt = Date.now();
    const res = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(1_000) });
    const date = res.headers.get("date");
    return date ? Date.parse(date) - (sentAt + Date.now()) / 2 : null;
  } catch {
    return null;
  }
}

/** Polls the server's clock until it shows `targetMs` (or SETTLE_MS runs out); the last skew seen. */
async function settle(
  ctx: FaultContext,
  server: WardenServer,
  targetMs: number,
): Promise<number | null> {
  const deadline = performance.now() + SETTLE_MS;
  let skew = await skewOf(server);
  while ((skew === null || Math.abs(skew - targetMs) > MATCH_MS) && performance.now() < deadline) {
    await ctx.sleep(200);
    skew = await skewOf(server);
  }
  return skew;
}

/**
 * Issue item 5: the libfaketime server's wall clock stepped by ±30 s (in a seeded order)
 * and then +300 s, each held for a while under traffic, then set right. Leases are judged
 * on the stores' clocks and the SDK's monotonic clock, so nothing may break.
 */
export async function clockJumpServer(ctx: FaultContext): Promise<void> {
  const { faketime, fakedServer } = ctx.stack;
  const holdMs = ctx.param("holdMs");
  ctx.start({ server: fakedServer.id });
  try {
    for (const name of ["firstOffsetMs", "secondOffsetMs", "thirdOffsetMs"]) {
      const targetMs = ctx.param(name);
      await faketime.set(targetMs);
      const shownAt = performance.now();
      ctx.observe({
        clockStep: { targetMs, measuredMs: await settle(ctx, fakedServer, targetMs) },
      });
      await ctx.sleep(Math.max(0, holdMs - (performance.now() - shownAt)));
    }
  } finally {
    await faketime.set(0);
  }
  ctx.observe({ clockReset: await settle(ctx, fakedServer, 0) });
  ctx.heal();
}
