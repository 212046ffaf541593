/**
 * A wait as the fleet bus shares it (docs/decisions/0155): enough for any instance to list
 * it in its key's queue and to cancel it by the tenant's waitId. `ref` is the wait's
 * fleet-wide id, and for a fair resource also its place id in the store's queue
 * (`FairWait.waiterId`): random, it says nothing about the tenant or the waitId.
 */
export interface SharedWait {
  readonly ref: string;
  readonly tenantId: string;
  readonly resource: string;
  readonly businessKey: string;
  readonly waitId: string | null;
  readonly clientId: string;
  readonly ownerId: string;
  /** When it started waiting, ms since the Unix epoch on the waiting instance's clock. */
  readonly since: number;
  /** Whether it holds a place in the store's queue (a fair resource). */
  readonly fair: boolean;
}

/** A wait another instance runs, and when it last said so. */
interface RemoteEntry {
  readonly wait: SharedWait;
  readonly from: string;
  seenAt: number;
}

/**
 * How long another instance's wait is believed without hearing of it again. Every
 * instance repeats its waits every {@link SHARE_WAITS_EVERY_MS}, so a wait survives two
 * lost repeats; the waits of an instance that died (or lost the bus) lapse within this.
 */
export const SHARE_WAITS_EVERY_MS = 2_000;
export const REMOTE_WAIT_TRUST_MS = 3 * SHARE_WAITS_EVERY_MS;

// NUL never appears in a tenant id or a waitId (both validated slugs).
function tenantWaitKey(tenantId: string, waitId: string): string {
  return `${tenantId}\u0000${waitId}`;
}

function isSharedWait(value: unknown): value is SharedWait {
  if (typeof value !== "object" || value === null) return false;
  const w = value as Record<string, unknown>;
  return (
    typeof w["ref"] === "string" &&
    typeof w["tenantId"] === "string" &&
    typeof w["resource"] === "string" &&
    typeof w["businessKey"] === "string" &&
    (w["waitId"] === null || typeof w["waitId"] === "string") &&
    typeof w["clientId"] === "string" &&
    typeof w["ownerId"] === "string" &&
    typeof w["since"] === "number" &&
    typeof w["fair"] === "boolean"
  );
}

/** The waits other instances run, as their fleet-bus messages said (docs/decisions/0155). */
export class RemoteWaits {
  private readonly byRef = new Map<string, RemoteEntry>();
  /** By tenant and waitId: waitIds are per tenant, like the local ones. */
  private readonly byWaitId = new Map<string, string>();
  /** Lookups waiting for a tenant's waitId to be announced ({@link whenKnown}). */
  private readonly awaited = new Map<string, Set<(wait: SharedWait) => void>>();

  /** `from` runs these waits (new ones, or repeated): remembered or refreshed. */
  upsert(from: string, waits: readonly unknown[], now: number): void {
    for (const wait of waits) {
      if (!isSharedWait(wait)) continue;
      const known = this.byRef.get(wait.ref);
      if (known) {
        known.seenAt = now;
        continue;
      }
      this.byRef.set(wait.ref, { wait, from, seenAt: now });
      if (wait.waitId === null) continue;
      const name = tenantWaitKey(wait.tenantId, wait.waitId);
      this.byWaitId.set(name, wait.ref);
      const waiting = this.awaited.get(name);
      if (waiting) {
        this.awaited.delete(name);
        for (const resolve of waiting) resolve(wait);
      }
    }
  }

  /**
   * The tenant's wait sent with `waitId` once another instance announces it, or undefined
   * after `withinMs`: a wait is announced at the first fleet-bus flush after its first
   * refused try, so one that has just started is not known yet (docs/decisions/0155).
   */
  whenKnown(tenantId: string, waitId: string, withinMs: number): Promise<SharedWait | undefined> {
    const known = this.find(tenantId, waitId, Date.now());
    if (known) return Promise.resolve(known);
    const name = tenantWaitKey(tenantId, waitId);
    return new Promise((resolve) => {
      const waiting = this.awaited.get(name) ?? new Set<(wait: SharedWait) => void>();
      this.awaited.set(name, waiting);
      const done = (wait: SharedWait | undefined) => {
        clearTimeout(timer);
        waiting.delete(done);
        if (waiting.size === 0 && this.awaited.get(name) === waiting) this.awaited.delete(name);
        resolve(wait);
      };
      const timer = setTimeout(() => done(undefined), withinMs);
      timer.unref();
      waiting.add(done);
    });
  }

  /** These waits of `from` ended (granted, timed out, cancelled). */
  end(from: string, refs: readonly unknown[]): void {
    for (const ref of refs) {
      if (typeof ref !== "string") continue;
      if (this.byRef.get(ref)?.from === from) this.drop(ref);
    }
  }

  /** Forgets one wait (cancelled from here). */
  drop(ref: string): void {
    const entry = this.byRef.get(ref);
    if (!entry) return;
    this.byRef.delete(ref);
    const { tenantId, waitId } = entry.wait;
    if (waitId !== null && this.byWaitId.get(tenantWaitKey(tenantId, waitId)) === ref) {
      this.byWaitId.delete(tenantWaitKey(tenantId, waitId));
    }
  }

  /** The tenant's wait sent with `waitId` on another instance, if one is known. */
  find(tenantId: string, waitId: string, now: number): SharedWait | undefined {
    const ref = this.byWaitId.get(tenantWaitKey(tenantId, waitId));
    const entry = ref === undefined ? undefined : this.byRef.get(ref);
    return entry && this.live(entry, now) ? entry.wait : undefined;
  }

  /** Another instance's wait by its ref, if known. */
  byRefLive(ref: string, now: number): SharedWait | undefined {
    const entry = this.byRef.get(ref);
    return entry && this.live(entry, now) ? entry.wait : undefined;
  }

  /** Other instances' waits on one resource (optionally one key). */
  list(resource: string, businessKey: string | undefined, now: number): SharedWait[] {
    const found: SharedWait[] = [];
    for (const entry of this.byRef.values()) {
      const { wait } = entry;
      if (wait.resource !== resource) continue;
      if (businessKey !== undefined && wait.businessKey !== businessKey) continue;
      if (this.live(entry, now)) found.push(wait);
    }
    return found;
  }

  /** Drops the waits nobody repeated in time (their instance died or lost the bus). */
  expire(now: number): void {
    for (const [ref, entry] of this.byRef) if (!this.live(entry, now)) this.drop(ref);
  }

  get size(): number {
    return this.byRef.size;
  }

  private live(entry: RemoteEntry, now: number): boolean {
    return now - entry.seenAt <= REMOTE_WAIT_TRUST_MS;
  }
}
