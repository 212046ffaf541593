import type { TieredSemaphores } from "@warden/core";
import type { PermitTracker } from "../live/permit-tracker.js";
import type { CoordinationUseCaseDeps } from "./coordination-deps.js";
import type { SemaphoreMetrics } from "./semaphore-metrics.js";

/**
 * The semaphore operations as the server calls them: the members of core's
 * `TieredSemaphores` (opened by `openTieredSemaphores` next to the tiered locks, whose
 * tier it follows) the semaphore use cases use.
 */
export type TieredSemaphoresPort = Pick<
  TieredSemaphores,
  "tier" | "acquire" | "release" | "extend" | "inspect" | "list" | "leaveQueue" | "close"
>;

/**
 * Everything the semaphore use cases may use (docs/decisions/0161): the shared deps, with
 * the registry seen as registryOfKind(registry, "semaphore").
 */
export interface SemaphoreUseCaseDeps extends CoordinationUseCaseDeps {
  readonly semaphores: TieredSemaphoresPort;
  readonly semaphoreMetrics: SemaphoreMetrics;
  /**
   * The fleet's permit grants as this instance knows them (docs/decisions/0162): fed with
   * every grant, renewal and release made here; the live feed's lapsed-grant reports come
   * from it. Holder lists and retirement ask the stores instead (docs/decisions/0217).
   */
  readonly permits?: PermitTracker;
}
