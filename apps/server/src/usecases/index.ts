import type {
  AcquireInput,
  AcquireReply,
  CancelWaitInput,
  CancelWaitReply,
  ExtendInput,
  ExtendReply,
  InspectReply,
  LockKeyInput,
  ReleaseInput,
  ReleaseReply,
  StaleFenceReply,
  StaleFenceReport,
} from "@warden/contract/wire";
import { tracedLockUseCases } from "../telemetry/traced-use-cases.js";
import { acquireUseCase } from "./acquire.js";
import { cancelWaitUseCase } from "./cancel-wait.js";
import type { LockUseCaseDeps } from "./deps.js";
import { extendUseCase } from "./extend.js";
import { inspectUseCase } from "./inspect.js";
import type { LockCaller } from "./lock-caller.js";
import { releaseUseCase } from "./release.js";
import { reportStaleFenceUseCase } from "./report-stale-fence.js";

export type { LockCaller } from "./lock-caller.js";
export type { LockUseCaseDeps } from "./deps.js";

/**
 * The lock operations as every transport calls them (tRPC's `lock.*` procedures, the
 * batched lock protocol): inputs already parsed with the wire contract's schemas
 * (`@warden/contract/wire`), replies in its shapes, errors as the contract's typed errors.
 * Each checks the caller's tenant owns the resource before touching the store, and owns
 * its metrics, logs and audit (docs/decisions/0061-use-case-layer.md), and acquire, release
 * and extend their OpenTelemetry spans (docs/decisions/0145-opentelemetry-tracing.md).
 */
export interface LockUseCases {
  acquire(caller: LockCaller, input: AcquireInput, signal: AbortSignal): Promise<AcquireReply>;
  release(caller: LockCaller, input: ReleaseInput): Promise<ReleaseReply>;
  extend(caller: LockCaller, input: ExtendInput): Promise<ExtendReply>;
  inspect(caller: LockCaller, input: LockKeyInput): Promise<InspectReply>;
  cancelWait(caller: LockCaller, input: CancelWaitInput): Promise<CancelWaitReply>;
  reportStaleFence(caller: LockCaller, input: StaleFenceReport): Promise<StaleFenceReply>;
}

/** Builds the lock use cases over the server's services. */
export function createLockUseCases(deps: LockUseCaseDeps): LockUseCases {
  // Spans for acquire, release and extend (no-ops without an OpenTelemetry SDK).
  return tracedLockUseCases({
    acquire: acquireUseCase(deps),
    release: releaseUseCase(deps),
    extend: extendUseCase(deps),
    inspect: inspectUseCase(deps),
    cancelWait: cancelWaitUseCase(deps),
    reportStaleFence: reportStaleFenceUseCase(deps),
  });
}
