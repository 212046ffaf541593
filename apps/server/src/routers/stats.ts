import { statsSeriesInputSchema, statsWindowInputSchema } from "../schemas/admin.js";
import { authedProcedure, router } from "../trpc.js";
import { isLongHold } from "../alerts/conditions.js";
import { liveHolds } from "../metrics/live-holds.js";

// Suggested lease = p99.9 hold × this margin, rounded up to a second (the console shows it).
const LEASE_MARGIN = 1.5;

/**
 * Time series for charts from the rolling windows (1 s buckets, last hour). They describe
 * the whole fleet when instances share a Redis (the fleet bus, docs/decisions/0071): any
 * instance answers the same within about a second.
 */
export const statsRouter = router({
  /** Acquire rate and outcome, latency and hold percentiles, queue depth per step. */
  series: authedProcedure.input(statsSeriesInputSchema).query(async ({ ctx, input }) => {
    if (input.resource !== undefined)
      await ctx.services.registry.get(input.resource, ctx.principal);
    if (input.resource === undefined && ctx.principal.kind === "tenant") {
      return { points: [], note: "name a resource: tenant keys see their own resources only" };
    }
    return {
      points: ctx.services.stats.series(input.resource, input.windowSec ?? 300, input.stepSec ?? 5),
      note: null,
    };
  }),

  /** Hold-time percentiles and a suggested lease (p99.9 × 1.5, whole seconds). */
  holdTimes: authedProcedure.input(statsWindowInputSchema).query(async ({ ctx, input }) => {
    if (input.resource !== undefined)
      await ctx.services.registry.get(input.resource, ctx.principal);
    // Samples of every resource would include other tenants': a tenant key names its own.
    const tenantWide = input.resource === undefined && ctx.principal.kind === "tenant";
    const summary = tenantWide
      ? { samples: 0, p50Ms: null, p99Ms: null, p999Ms: null, maxMs: null }
      : ctx.services.stats.holdSummary(input.resource, input.windowSec ?? 3_600);
    const suggestedLeaseMs =
      summary.p999Ms === null
        ? null
        : Math.min(60_000, Math.ceil((summary.p999Ms * LEASE_MARGIN) / 1000) * 1000);
    return {
      ...summary,
      suggestedLeaseMs,
      margin: LEASE_MARGIN,
      note: tenantWide ? "name a resource: tenant keys see their own resources only" : null,
    };
  }),

  /** The overview: live holds of every kind, waiters, totals and top contended resources of the window. */
  overview: authedProcedure.input(statsWindowInputSchema).query(async ({ ctx, input }) => {
    const { services } = ctx;
    const windowSec = input.windowSec ?? 300;
    if (ctx.principal.kind === "tenant") {
      // Resources only other instances have served (fleet bus): learn their owner first.
      const unknown = new Set<string>();
      for (const name of services.stats.totals(windowSec).keys())
        if (services.registry.ownerOf(name) === null) unknown.add(name);
      for (const hold of liveHolds(services.liveHolds))
        if (services.registry.ownerOf(hold.resource) === null) unknown.add(hold.resource);
      const principal = ctx.principal;
      await Promise.all(
        [...unknown]
          .slice(0, 200)
          .map((name) => services.registry.get(name, principal).catch(() => undefined)),
      );
    }
    const visible = (name: string) =>
      ctx.principal.kind === "operator" ||
      (services.registry.ownerOf(name) === ctx.principal.tenantId &&
        name.startsWith(ctx.principal.resourcePrefix ?? ""));
    const totals = [...services.stats.totals(windowSec)].filter(([name]) => visible(name));
    const sum = (pick: (p: (typeof totals)[number][1]) => number) =>
      totals.reduce((acc, [, point]) => acc + pick(point), 0);
    const now = Date.now();
    // Every kind's holds: mutex leases, semaphore permit grants, read-write grants (0194).
    const holds = [...liveHolds(services.liveHolds)].filter((hold) => visible(hold.resource));
    const longHolds = holds.flatMap((hold) => {
      const expected = services.registry.expectedHoldOf(hold.resource);
      return isLongHold(now, hold.grantedAt, expected)
        ? [{ ...hold, heldMs: now - hold.grantedAt, expectedHoldMs: expected }]
        : [];
    });
    return {
      tier: services.locks.snapshot(),
      liveLocks: holds.length,
      waiters: [...services.stats.fleetWaiters(services.waiters.countsByResource())]
        .filter(([n]) => visible(n))
        .reduce((a, [, c]) => a + c, 0),
      acquires: sum((p) => p.acquires),
      granted: sum((p) => p.granted),
      refused: sum((p) => p.refused),
      timeouts: sum((p) => p.timeouts),
      failed: sum((p) => p.failed),
      renewFailures: sum((p) => p.renewFailures),
      topContended: totals
        .map(([resource, p]) => ({
          resource,
          refused: p.refused + p.timeouts,
          acquires: p.acquires,
          latencyP99Ms: p.latencyP99Ms,
        }))
        .sort((a, b) => b.refused - a.refused)
        .slice(0, 10),
      longHolds: longHolds.slice(0, 50),
      audit: {
        ...services.audit.spoolSize,
        buffered: services.audit.buffered,
        spoolFull: services.audit.spoolFull,
      },
      instanceId: services.config.instanceId,
      windowSec,
    };
  }),
});
