import { NotHolderError, type LeaseView } from "@warden/contract";
import { lockIdSchema, lockKeyInputSchema, reasonSchema } from "@warden/contract/wire";
import type { z } from "zod";
import { auditRecord } from "../audit/audit-record.js";
import type { Principal } from "../auth/principal.js";
import type { RevokeRequest } from "../protocol/revoke-relay.js";
import type { LockUseCaseDeps } from "./deps.js";

/** lock.requestRevoke: the key, optionally the grant, and why. */
export const requestRevokeInputSchema = lockKeyInputSchema.extend({
  lockId: lockIdSchema.optional(),
  reason: reasonSchema.optional(),
});
export type RequestRevokeInput = z.output<typeof requestRevokeInputSchema>;

/** Who asks: a tenant's API key (its own resources) or an operator (any tenant's). */
export interface RevokeRequester {
  readonly principal: Principal;
  /** As the audit trail names it (`actorOf`). */
  readonly actor: string;
}

/** What the requester learns: the grant asked to let go, and its holder. */
export interface RequestRevokeReply {
  readonly requested: true;
  readonly lockId: string;
  readonly fence: string | null;
  readonly holder: LeaseView["holder"];
  readonly currentTier: LockUseCaseDeps["locks"]["tier"];
}

export type RequestRevoke = (
  requester: RevokeRequester,
  input: RequestRevokeInput,
) => Promise<RequestRevokeReply>;

interface Deps extends Pick<LockUseCaseDeps, "registry" | "locks" | "hub" | "logger"> {
  /** Sends the request to every instance (this one included). */
  readonly publish: (request: RevokeRequest) => void;
}

/**
 * Cooperative revocation (docs/decisions/0176-cooperative-revocation.md): asks the holder of
 * a key's live lease to release it. The lease is looked up like lock.inspect; with none (or
 * none with `lockId`) the call is NOT_HOLDER and nothing is audited or sent. Otherwise a
 * `revoke-requested` audit event names the requester and the reason, and the request goes
 * over the fleet bus to every instance, which hands it to the holder's lock connections.
 * The lease itself is untouched: a holder that ignores the request keeps its lock (force
 * release is for that). A resource of another tenant is UNKNOWN_RESOURCE like a missing one.
 */
export function requestRevokeUseCase(deps: Deps): RequestRevoke {
  return async function requestRevoke(requester, input) {
    const resource = await deps.registry.get(input.resource, requester.principal);
    const key = { resource: resource.name, businessKey: input.businessKey };
    const lease = await deps.locks.inspect(key);
    if (!lease || (input.lockId !== undefined && lease.lockId !== input.lockId)) {
      throw new NotHolderError(input.lockId ?? "", lease ? "other-holder" : "expired");
    }
    const at = Date.now();
    const request: RevokeRequest = {
      tenantId: resource.tenantId,
      clientId: lease.holder.clientId,
      ...key,
      lockId: lease.lockId,
      reason: input.reason ?? null,
      requestedBy: requester.actor,
      at,
    };
    deps.hub.record(
      auditRecord({
        type: "revoke-requested",
        tenantId: resource.tenantId,
        ...key,
        lockId: lease.lockId,
        fence: lease.fence,
        clientId: lease.holder.clientId,
        ownerId: lease.holder.ownerId,
        tier: lease.tier,
        actor: requester.actor,
        reason: request.reason,
        at,
        grantedAt: lease.grantedAt,
      }),
    );
    deps.publish(request);
    deps.logger.info(
      { op: "revoke-request", ...key, lockId: lease.lockId, actor: requester.actor },
      "release requested of the holder",
    );
    return {
      requested: true,
      lockId: lease.lockId,
      fence: lease.fence,
      holder: lease.holder,
      currentTier: deps.locks.tier,
    };
  };
}
