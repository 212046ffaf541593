import type {
  AcquireInput,
  AcquireReply,
  ExtendInput,
  ExtendReply,
  ReleaseInput,
  ReleaseReply,
} from "@warden/contract/wire";
import type { LockCaller } from "../usecases/lock-caller.js";
import { grantAttributes, inRenew, keyAttributes, traced } from "./tracing.js";

/** The lock use cases that get spans (the others are reads and bookkeeping). */
interface Traceable {
  acquire(caller: LockCaller, input: AcquireInput, signal: AbortSignal): Promise<AcquireReply>;
  release(caller: LockCaller, input: ReleaseInput): Promise<ReleaseReply>;
  extend(caller: LockCaller, input: ExtendInput): Promise<ExtendReply>;
}

/**
 * The same use cases, each acquire (its wait included), release and extend under a
 * `warden.*` server span whatever the transport; an extend of a `renew` command is covered
 * by the command's span instead (see tracedRenew).
 */
export function tracedLockUseCases<T extends Traceable>(useCases: T): T {
  return {
    ...useCases,
    acquire: (caller: LockCaller, input: AcquireInput, signal: AbortSignal) =>
      traced(
        "warden.acquire",
        () => ({
          ...keyAttributes(input.resource, input.businessKey),
          "warden.tenant": caller.principal.tenantId,
          "warden.wait_ms": input.waitMs ?? 0,
        }),
        () => useCases.acquire(caller, input, signal),
        (reply, span) => {
          if (reply.granted) {
            span.setAttributes({ ...grantAttributes(reply), "warden.outcome": "granted" });
          } else {
            span.setAttributes({ "warden.tier": reply.tier, "warden.outcome": "refused" });
          }
        },
      ),
    release: (caller: LockCaller, input: ReleaseInput) =>
      traced(
        "warden.release",
        () => ({
          ...keyAttributes(input.resource, input.businessKey),
          "warden.tenant": caller.principal.tenantId,
          "warden.lock_id": input.lockId,
          "warden.tier": input.tier,
        }),
        () => useCases.release(caller, input),
        (reply, span) => {
          span.setAttributes({ "warden.outcome": "released", "warden.released": reply.released });
        },
      ),
    extend: (caller: LockCaller, input: ExtendInput) =>
      inRenew()
        ? useCases.extend(caller, input)
        : traced(
            "warden.extend",
            () => ({
              ...keyAttributes(input.resource, input.businessKey),
              "warden.tenant": caller.principal.tenantId,
              "warden.lock_id": input.lockId,
            }),
            () => useCases.extend(caller, input),
            (lease, span) => {
              span.setAttributes({ ...grantAttributes(lease), "warden.outcome": "extended" });
            },
          ),
  };
}
