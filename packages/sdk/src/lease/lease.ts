import type { LeaseLostError } from "@warden/contract";
import type { RevokeRequest } from "../transport/lock-socket.js";
import type { LeaseBackend, LeaseFacts } from "./lease-facts.js";
import { Watchdog } from "./watchdog.js";

/** A lock handle as the lease sees it: told once when the lease may be lost. */
export interface LeaseHandle {
  onLeaseLost(error: LeaseLostError): void;
  /** Someone asked the holder to release this lease (decision 0176). */
  onRevokeRequested?(request: RevokeRequest): void;
}

/** The grant a lease starts from. */
export interface LeaseStart {
  /** Monotonic instant the grant request (or its confirming renewal) was sent. */
  readonly sentAt: number;
  /** Remaining lease the store reported, in ms. */
  readonly ttlMs: number;
  /** Expiry on the store's clock, ms since the Unix epoch. */
  readonly expiresAt: number;
  /** Lease asked for at each renewal; undefined = the resource's default. */
  readonly leaseMs: number | undefined;
  /** Renewals the resource allows per grant; null = unlimited. */
  readonly maxRenewals: number | null;
  readonly safetyMarginMs: number;
  /** Renewals already made for this grant (a confirming renewal after a long wait). */
  readonly renewals?: number;
}

/** Where a lease reports the end of its life. */
export interface LeaseLifecycle {
  /** The lease is no longer held (lost or released); called once. */
  ended(lease: Lease): void;
  /**
   * The last handle let go. Returns false when the lockId is no longer this lease's (the
   * store re-granted it to a newer lease of the same owner): then nothing is sent.
   */
  releasing(lease: Lease): boolean;
}

/**
 * One grant held by this client, shared by every handle of the same owner that re-entered
 * it. Its watchdog renews while any handle holds it; the last handle's release stops the
 * watchdog first and only then releases at the store (docs/design.md#release: a renewal must never
 * land after the release and re-animate the lock).
 */
export class Lease implements LeaseFacts {
  readonly resource: string;
  readonly businessKey: string;
  readonly ownerId: string;
  readonly lockId: string;
  readonly fence: string | null;
  readonly tier: LeaseFacts["tier"];
  readonly maxRenewals: number | null;
  /** `held` while renewed; `lost` once it may have expired; `released` after the last handle let go. */
  status: "held" | "lost" | "released" = "held";
  /** Why it was lost. */
  lossError: LeaseLostError | null = null;
  /** Latest expiry the store reported, ms since the Unix epoch (store clock). */
  expiresAt: number;
  private readonly handles = new Set<LeaseHandle>();
  private readonly watchdog: Watchdog;

  constructor(
    facts: LeaseFacts,
    start: LeaseStart,
    private readonly backend: LeaseBackend,
    private readonly lifecycle: LeaseLifecycle,
  ) {
    this.resource = facts.resource;
    this.businessKey = facts.businessKey;
    this.ownerId = facts.ownerId;
    this.lockId = facts.lockId;
    this.fence = facts.fence;
    this.tier = facts.tier;
    this.maxRenewals = start.maxRenewals;
    this.expiresAt = start.expiresAt;
    this.watchdog = new Watchdog(
      {
        lockId: facts.lockId,
        leaseMs: start.leaseMs,
        nominalLeaseMs: start.leaseMs ?? start.ttlMs,
        safetyMarginMs: start.safetyMarginMs,
        maxRenewals: start.maxRenewals,
      },
      {
        renew: async (leaseMs) => {
          const renewed = await backend.extend(this, leaseMs);
          this.expiresAt = renewed.expiresAt;
          return renewed;
        },
        onLost: (error) => this.lose(error),
        ...(backend.clock ? { clock: backend.clock } : {}),
      },
    );
    this.watchdog.renewals = start.renewals ?? 0;
    this.watchdog.start(start.sentAt, start.ttlMs);
  }

  /** Whether the lease lives in the server's tiers or in this process's local store. */
  get backendKind(): LeaseBackend["kind"] {
    return this.backend.kind;
  }

  /** Renewals confirmed so far. */
  get renewals(): number {
    return this.watchdog.renewals;
  }

  /** Adds a handle (the first acquire, or a re-entry of the same owner). */
  attach(handle: LeaseHandle): void {
    this.handles.add(handle);
    if (this.lossError) handle.onLeaseLost(this.lossError);
  }

  /** Renews now; see {@link Watchdog.renewNow}. */
  extend(leaseMs: number | undefined): Promise<void> {
    return this.watchdog.renewNow(leaseMs);
  }

  /**
   * Lets `handle` go. Other handles of the owner keep the lease; the last one stops the
   * watchdog, waits for a renewal in flight, and releases at the store.
   */
  async detach(handle: LeaseHandle): Promise<void> {
    if (!this.handles.delete(handle) || this.handles.size > 0) return;
    if (this.status === "released") return;
    const wasHeld = this.status === "held";
    this.status = "released";
    const renewal = this.watchdog.stop();
    if (renewal) await renewal;
    if (wasHeld) this.lifecycle.ended(this);
    if (this.lifecycle.releasing(this)) await this.backend.release(this);
  }

  /**
   * Ends the lease whatever its handles do (the client is closing): their signals abort
   * with `reason`, the watchdog stops, and the lease is released at the store.
   */
  async terminate(reason: LeaseLostError): Promise<void> {
    if (this.status === "released") return;
    this.lose(reason);
    this.handles.clear();
    this.status = "released";
    await this.watchdog.stop();
    if (this.lifecycle.releasing(this)) await this.backend.release(this);
  }

  /** A revoke request for this grant: told to every handle while it is held. */
  revokeRequested(request: RevokeRequest): void {
    if (this.status !== "held") return;
    for (const handle of [...this.handles]) handle.onRevokeRequested?.(request);
  }

  /** Declares the lease lost: every handle's signal aborts with `error`. */
  lose(error: LeaseLostError): void {
    if (this.status !== "held") return;
    this.status = "lost";
    this.lossError = error;
    void this.watchdog.stop();
    this.lifecycle.ended(this);
    for (const handle of [...this.handles]) handle.onLeaseLost(error);
  }
}
