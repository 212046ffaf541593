import { createCallerFactory, router } from "../trpc.js";
import { authRouter } from "./auth.js";
import { clientRouter } from "./client.js";
import { eventRouter } from "./event.js";
import { holderRouter } from "./holder.js";
import { liveRouter } from "./live.js";
import { lockRouter } from "./lock.js";
import { resourceRouter } from "./resource.js";
import { statsRouter } from "./stats.js";
import { tenantRouter } from "./tenant.js";
import { tierRouter } from "./tier.js";

/** The whole API: one router per domain. */
export const appRouter = router({
  auth: authRouter,
  lock: lockRouter,
  resource: resourceRouter,
  holder: holderRouter,
  tier: tierRouter,
  event: eventRouter,
  stats: statsRouter,
  client: clientRouter,
  tenant: tenantRouter,
  live: liveRouter,
});

/** The API's type, for the SDK's and the console's tRPC clients. */
export type AppRouter = typeof appRouter;

/** Calls procedures in-process with a context from createContextInner (tests, CLI). */
export const createCaller = createCallerFactory(appRouter);
