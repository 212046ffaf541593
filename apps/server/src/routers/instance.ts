import { roleProcedure, router } from "../trpc.js";

/** The server instances of the fleet (docs/decisions/0135). */
export const instanceRouter = router({
  /**
   * Every instance announcing itself in the shared Redis: id, version, host/pid, uptime,
   * open connections, its tier view and when it was last seen; the same from any
   * instance. Operators only (any role): tenants are refused (FORBIDDEN), since hosts,
   * pids and connection counts describe the deployment, not their locks. While Redis does
   * not answer, `source` is `self` and the list is the answering instance alone.
   */
  list: roleProcedure("viewer").query(({ ctx }) => ctx.services.instances.list()),
});
