import { InvalidArgumentError } from "@warden/contract";
import type { ClientContext } from "../client/client-context.js";
import { clientQuery } from "../client/client-query.js";
import type { HeldGrants } from "../client/held-grants.js";
import { HeldGrant, grantInput, type GrantFacts } from "../grant/held-grant.js";
import type { RemoteGrantRef } from "../remote/release-remote.js";

/** What the server granted, as a {@link Permit} starts from. */
export interface PermitGrantFacts extends GrantFacts {
  readonly permits: number;
}

/** The permits a client holds, released by `warden.close()`. */
export type HeldPermits = HeldGrants<Permit>;

/** Renews a permit once by call; what its watchdog and the wait confirmation call. */
export async function renewPermitGrant(
  ctx: ClientContext,
  grant: RemoteGrantRef,
  leaseMs: number | undefined,
): Promise<{ ttlMs: number; expiresAt: number }> {
  const reply = await clientQuery(
    ctx,
    (api, call) => api.semaphore.extend.mutate(grantInput(grant, leaseMs), call),
    "semaphore.extend",
    grant.resource,
  );
  return { ttlMs: reply.permit.ttlMs, expiresAt: reply.permit.expiresAt };
}

/**
 * A semaphore permit grant held by this client (docs/decisions/0161): `permits` of the
 * key's total, with its own lockId and fence, kept alive by a watchdog exactly like a
 * lock's lease (renewed at a third of the lease, on the client's renewal clock; declared
 * lost — `signal` aborts with a `LeaseLostError` — when no renewal was confirmed before
 * the lease may have run out, when the server refuses a renewal, or at the resource's
 * maxRenewals, which the server enforces too).
 */
export class Permit extends HeldGrant {
  /** Larger than every earlier grant's of the key (any permit, any tier); null on the local tier. */
  declare readonly fence: string | null;
  /** Permits this grant holds. */
  readonly permits: number;
  /** Renewed in the bulk `renew` command until a server refuses permit items there. */
  private bulk = true;

  /** @internal Made by `Semaphore.acquire`; not for direct use. */
  constructor(ctx: ClientContext, set: HeldPermits, grant: PermitGrantFacts) {
    super(ctx, set, grant);
    this.permits = grant.permits;
  }

  /** @internal */
  protected override get label(): string {
    return "permit";
  }

  /** @internal */
  protected override async renewOnce(leaseMs: number | undefined) {
    if (this.bulk) {
      try {
        // With the client's other due renewals, in one bulk `renew` command.
        return await this.ctx.remote.extend(this, leaseMs, "permit");
      } catch (error) {
        // A server that does not know permit items takes them for locks and refuses
        // them on `kind`, changing nothing: renew by call from then on.
        if (!(error instanceof InvalidArgumentError && error.field === "kind")) throw error;
        this.bulk = false;
      }
    }
    return renewPermitGrant(this.ctx, this, leaseMs);
  }

  /** @internal */
  protected override releaseAtServer(): Promise<unknown> {
    return clientQuery(
      this.ctx,
      (api, call) => api.semaphore.release.mutate(grantInput(this), call),
      "semaphore.release",
      this.resource,
      true,
    );
  }
}
