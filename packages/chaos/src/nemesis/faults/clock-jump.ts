import type { WardenServer } from "../../stack/warden-server.js";
import type { FaultContext } from "../fault-context.js";

/** libfaketime re-reads its file every second; a little more lets the step show. */
const SETTLE_MS = 1_500;

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
      await ctx.sleep(SETTLE_MS);
      ctx.observe({ clockStep: { targetMs, measuredMs: await skewOf(fakedServer) } });
      await ctx.sleep(Math.max(0, holdMs - SETTLE_MS));
    }
  } finally {
    await faketime.set(0);
  }
  await ctx.sleep(SETTLE_MS);
  ctx.observe({ clockReset: await skewOf(fakedServer) });
  ctx.heal();
}
