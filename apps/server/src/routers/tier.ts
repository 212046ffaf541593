import { tierHistoryInputSchema, tierOverrideInputSchema } from "../schemas/admin.js";
import { authedProcedure, roleProcedure, router } from "../trpc.js";

/** The tier controller's state, its history, and the operator override. */
export const tierRouter = router({
  /** Current tier, epoch, since when and why. */
  state: authedProcedure.query(({ ctx }) => ctx.services.locks.snapshot()),

  /** Latest transitions first. */
  history: authedProcedure
    .input(tierHistoryInputSchema)
    .query(({ ctx, input }) => ctx.services.locks.history(input.limit ?? 50)),

  /**
   * Pins the tier (`tier: null` hands it back to the controller). Needs the operator
   * role; the change is audited with who and why.
   */
  override: roleProcedure("operator")
    .input(tierOverrideInputSchema)
    .mutation(async ({ ctx, input }) => {
      const snapshot = await ctx.services.locks.override(input.tier, ctx.actor, input.reason);
      ctx.services.logger.warn(
        { op: "tier-override", tier: input.tier, actor: ctx.actor, reason: input.reason },
        "tier override",
      );
      return snapshot;
    }),
});
