/**
 * Cooperative revocation (docs/decisions/0176-cooperative-revocation.md): a request that
 * the holder of a lease let it go. It travels the fleet bus to every instance, and each
 * instance hands it to its own lock-protocol connections of the holder's tenant and
 * clientId as a `[0, "revoke", push]` entry. It is only a request: nothing in the store
 * changes.
 */
export interface RevokeRequest {
  /** The tenant owning the resource (the holder's tenant). */
  readonly tenantId: string;
  /** The holder's SDK instance, canonical as the store keeps it. */
  readonly clientId: string;
  readonly resource: string;
  readonly businessKey: string;
  /** The grant asked to let go. */
  readonly lockId: string;
  /** Why, as the requester said it; null when it gave none. */
  readonly reason: string | null;
  /** Who asked, as the audit trail names actors (`operator:…`, `tenant:…/key:…`). */
  readonly requestedBy: string;
  /** When it was asked, ms since the Unix epoch (the requesting instance's clock). */
  readonly at: number;
}

/** What the holder's SDK receives: the request without the routing fields. */
export type RevokePush = Omit<RevokeRequest, "tenantId" | "clientId">;

/** Checks a request that came over the fleet bus (another instance's JSON). */
export function isRevokeRequest(value: unknown): value is RevokeRequest {
  if (typeof value !== "object" || value === null) return false;
  const request = value as Record<string, unknown>;
  return (
    typeof request.tenantId === "string" &&
    typeof request.clientId === "string" &&
    typeof request.resource === "string" &&
    typeof request.businessKey === "string" &&
    typeof request.lockId === "string" &&
    (request.reason === null || typeof request.reason === "string") &&
    typeof request.requestedBy === "string" &&
    typeof request.at === "number"
  );
}

function keyOf(tenantId: string, clientId: string): string {
  // A tenant id is a slug (no NUL), so tenant and clientId never run together.
  return `${tenantId}\u0000${clientId}`;
}

/** This instance's lock connections by tenant and clientId, for delivering requests. */
export class RevokeRelay {
  private readonly sinks = new Map<string, Set<(push: RevokePush) => void>>();

  /** A connection of `clientId` in `tenantId` takes requests until the returned call. */
  join(tenantId: string, clientId: string, sink: (push: RevokePush) => void): () => void {
    const key = keyOf(tenantId, clientId);
    let set = this.sinks.get(key);
    if (!set) {
      set = new Set();
      this.sinks.set(key, set);
    }
    set.add(sink);
    return () => {
      const current = this.sinks.get(key);
      if (!current) return;
      current.delete(sink);
      if (current.size === 0) this.sinks.delete(key);
    };
  }

  /** Hands `request` to every connection of its tenant and clientId here; how many. */
  deliver(request: RevokeRequest): number {
    const set = this.sinks.get(keyOf(request.tenantId, request.clientId));
    if (!set) return 0;
    const push: RevokePush = {
      resource: request.resource,
      businessKey: request.businessKey,
      lockId: request.lockId,
      reason: request.reason,
      requestedBy: request.requestedBy,
      at: request.at,
    };
    for (const sink of [...set]) sink(push);
    return set.size;
  }
}
