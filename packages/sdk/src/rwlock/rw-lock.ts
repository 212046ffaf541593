import { validateLockKey, type LockKey } from "@warden/contract";
import type { ClientContext } from "../client/client-context.js";
import { clientQuery } from "../client/client-query.js";
import { checkWaitOptions, grantedWithin, requestGrant } from "../grant/request-grant.js";
import { RwLease, renewRwGrant, type HeldRwLeases, type RwMode } from "./rw-lease.js";

/** Options of {@link RwLock.read} and {@link RwLock.write}. */
export interface RwAcquireOptions {
  /** How long the server may wait for the key, in ms; 0 tries once. @defaultValue 10 000 */
  readonly waitMs?: number;
  /** Lease of the grant, renewed by the watchdog; default: the resource's defaultLeaseMs. */
  readonly leaseMs?: number;
  /**
   * Who holds it within this client (shown by inspect). The same owner asking again in the
   * same mode re-enters the grant (one release per entry). @defaultValue a new random id
   */
  readonly ownerId?: string;
  /**
   * Gives up the wait: the server withdraws it (`lock.cancelWait`) and the acquire rejects
   * with the signal's reason; a grant that crossed the abort is released.
   */
  readonly signal?: AbortSignal;
}

/** A grant as {@link RwLock.inspect} reports it. */
export interface RwGrantInfo {
  readonly lockId: string;
  readonly mode: RwMode;
  readonly fence: string | null;
  readonly holder: { readonly clientId: string; readonly ownerId: string };
  readonly expiresAt: number;
  readonly renewals: number;
  readonly tier: string;
}

/** A read-write lock key as the server reports it. */
export interface RwLockInfo {
  readonly writer: RwGrantInfo | null;
  readonly readers: readonly RwGrantInfo[];
  /** The fence the current read generation shares, once a read was granted since the last write. */
  readonly readFence: string | null;
  /** Writers waiting with writer preference (they stop new readers). */
  readonly waitingWriters: number;
  readonly writerPreference: boolean;
}

/**
 * One key of a read-write lock resource (`kind: rwlock`), from
 * `warden.rwLock(resource, businessKey)` (docs/decisions/0166): many readers at once, or
 * one writer. With the resource's writer preference (the default) a waiting writer stops
 * new readers, so readers cannot starve it.
 */
export class RwLock {
  readonly resource: string;
  readonly businessKey: string;

  /** @internal Made by `Warden.rwLock`; not for direct use. */
  constructor(
    private readonly ctx: ClientContext,
    private readonly held: HeldRwLeases,
    key: LockKey,
  ) {
    const checked = validateLockKey(key);
    this.resource = checked.resource;
    this.businessKey = checked.businessKey;
  }

  /**
   * A read grant, shared with other readers, waiting server-side up to `waitMs` while a
   * writer holds the key (or, with writer preference, waits for it). Renewed until released
   * or lost.
   *
   * @throws LockTimeoutError - not granted within `waitMs`.
   * @throws InvalidArgumentError - bad options, the same owner holds the key for writing
   *   (`field: "mode"`), or the resource is not an rwlock (`field: "kind"`).
   * @throws UnknownResourceError - no such resource for this tenant.
   * @throws OutcomeUnknownError - no answer in time: a grant may have been made; it runs out
   *   with its lease.
   */
  read(options: RwAcquireOptions = {}): Promise<RwLease> {
    return this.acquire("read", options);
  }

  /**
   * The key's one write grant, once no reader or writer holds it; see {@link read}. While
   * it waits, new readers are held back (the resource's writer preference); once it gives
   * up (`waitMs` over, `signal` aborted) they no longer are.
   */
  write(options: RwAcquireOptions = {}): Promise<RwLease> {
    return this.acquire("write", options);
  }

  /** Like {@link read} with `waitMs: 0`, but resolves null when the key is not free for reading. */
  tryRead(options: Omit<RwAcquireOptions, "waitMs"> = {}): Promise<RwLease | null> {
    return this.request("read", { ...options, waitMs: 0 });
  }

  /**
   * Like {@link write} with `waitMs: 0`, but resolves null when the key is held. A refused
   * try registers no writer intent: readers are not held back by it.
   */
  tryWrite(options: Omit<RwAcquireOptions, "waitMs"> = {}): Promise<RwLease | null> {
    return this.request("write", { ...options, waitMs: 0 });
  }

  /** The key's writer, readers, read fence and waiting writers on the tier that answers. */
  async inspect(): Promise<RwLockInfo> {
    const key = { resource: this.resource, businessKey: this.businessKey };
    return clientQuery(
      this.ctx,
      (api, call) => api.rwlock.inspect.query(key, call),
      "rwlock.inspect",
      this.resource,
    );
  }

  private async acquire(mode: RwMode, options: RwAcquireOptions): Promise<RwLease> {
    return grantedWithin(await this.request(mode, options), options.waitMs);
  }

  private async request(mode: RwMode, options: RwAcquireOptions): Promise<RwLease | null> {
    const { waitMs, leaseMs, ownerId } = checkWaitOptions(options);
    return requestGrant(this.ctx, {
      operation: `rwlock.${mode}`,
      resource: this.resource,
      businessKey: this.businessKey,
      ownerId,
      extra: {},
      waitMs,
      leaseMs,
      signal: options.signal,
      send: (api, input, call) =>
        mode === "read"
          ? api.rwlock.acquireRead.mutate(input, call)
          : api.rwlock.acquireWrite.mutate(input, call),
      renew: renewRwGrant,
      hold: (facts, reply) => new RwLease(this.ctx, this.held, { ...facts, mode: reply.mode }),
    });
  }
}
