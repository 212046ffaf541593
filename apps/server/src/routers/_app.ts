import { createCallerFactory, router } from "../trpc.js";
import { alertRouter } from "./alert.js";
import { authRouter } from "./auth.js";
import { clientRouter } from "./client.js";
import { eventRouter } from "./event.js";
import { holderRouter } from "./holder.js";
import { instanceRouter } from "./instance.js";
import { keyStateRouter } from "./key-state.js";
import { liveRouter } from "./live.js";
import { lockRouter } from "./lock.js";
import { semaphoreRouter } from "./semaphore.js";
import { rwlockRouter } from "./rwlock.js";
import { resourceRouter } from "./resource.js";
import { statsRouter } from "./stats.js";
import { tenantRouter } from "./tenant.js";
import { tierRouter } from "./tier.js";

/** The whole API: one router per domain. */
export const appRouter = router({
  auth: authRouter,
  lock: lockRouter,
  semaphore: semaphoreRouter,
  rwlock: rwlockRouter,
  resource: resourceRouter,
  holder: holderRouter,
  tier: tierRouter,
  event: eventRouter,
  stats: statsRouter,
  client: clientRouter,
  tenant: tenantRouter,
  live: liveRouter,
  alert: alertRouter,
  instance: instanceRouter,
  keyState: keyStateRouter,
});

/** The API's type, for the SDK's and the console's tRPC clients. */
export type AppRouter = typeof appRouter;

/** Calls procedures in-process with a context from createContextInner (tests, CLI). */
export const createCaller = createCallerFactory(appRouter);
