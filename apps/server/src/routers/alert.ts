import { z } from "zod";
import { EVALUATOR_LOCK } from "../alerts/alert-evaluator.js";
import { AlertStore } from "../alerts/alert-store.js";
import { authedProcedure, router } from "../trpc.js";

const listInput = z
  .object({ limit: z.number().int().min(1).max(500).optional() })
  .strict()
  .optional();

/**
 * Alerts the fleet's evaluator found (docs/decisions/0130), from MySQL, so every instance
 * answers the same. Operators see every alert, webhook health and which instance
 * evaluates; a tenant key sees the alerts of its own resources (under its prefix) and
 * its own SDK instances only.
 */
export const alertRouter = router({
  list: authedProcedure.input(listInput).query(async ({ ctx, input }) => {
    const { services, principal } = ctx;
    const store = new AlertStore(services.prisma);
    const limit = input?.limit ?? 200;
    if (principal.kind === "tenant") {
      const alerts = await store.list(
        {
          kind: "tenant",
          tenantId: principal.tenantId,
          resourcePrefix: principal.resourcePrefix ?? null,
        },
        limit,
      );
      return { alerts, deliveries: [], evaluator: null };
    }
    const [alerts, deliveries, lease] = await Promise.all([
      store.list({ kind: "operator" }, limit),
      store.deliveries(),
      services.locks.inspect(EVALUATOR_LOCK).catch(() => null),
    ]);
    return {
      alerts,
      deliveries,
      evaluator:
        lease === null
          ? null
          : { holder: lease.holder.clientId, tier: lease.tier, since: lease.grantedAt },
    };
  }),
});
