import { UnknownResourceError, validateLockKey, validateResource } from "@warden/contract";
import { acquireLock } from "../acquire/acquire-lock.js";
import { acquireAll, type AcquireAllOptions, type LockSet } from "../coordination/acquire-all.js";
import { campaign, type Campaign, type CampaignOptions } from "../coordination/campaign.js";
import type { StaleFenceReport } from "../guards/fenced-holder.js";
import type { LeaseLifecycle } from "../lease/lease.js";
import { Lock, type LockServices } from "../lock/lock.js";
import type { AcquireOptions } from "../options/acquire-options.js";
import { resolveAcquire } from "../options/resolve-acquire-options.js";
import { resolveWardenOptions } from "../options/resolve-warden-options.js";
import type { WardenOptions } from "../options/warden-options.js";
import { newOwnerId, runAsOwner } from "../owner/owner-scope.js";
import type { KnownPolicy } from "../policy/policy-cache.js";
import "../polyfill/async-dispose.js";
import type { Permit } from "../semaphore/permit.js";
import { Semaphore } from "../semaphore/semaphore.js";
import type { RwLease } from "../rwlock/rw-lease.js";
import { RwLock } from "../rwlock/rw-lock.js";
import type { ConnectionState } from "../transport/connection.js";
import { classifyFailure } from "../transport/map-error.js";
import { buildClient, type ClientParts } from "./build-client.js";
import type { ClientContext } from "./client-context.js";
import { HeldGrants } from "./held-grants.js";
import { clientQuery } from "./client-query.js";
import type { LockInfo, WaiterInfo, WardenStats } from "./views.js";

/**
 * A Warden client: one persistent WebSocket to the server, shared by every lock of this
 * process (make one per process and close it on shutdown). See {@link createWarden}.
 */
export class Warden {
  /** This SDK instance's id, as holders and the console show it. */
  readonly clientId: string;
  private readonly ctx: ClientContext;
  private readonly lifecycle: LeaseLifecycle;
  private readonly services: LockServices;
  private readonly quiesce: ClientParts["quiesce"];
  private readonly shutdown: ClientParts["shutdown"];
  private readonly renewer: ClientParts["renewer"];
  private closed: Promise<void> | null = null;
  /** Permits of this client's semaphores, released first by close(). */
  private readonly permits = new HeldGrants<Permit>();
  /** Read-write grants of this client, released first by close(). */
  private readonly rwLeases = new HeldGrants<RwLease>();

  /** Prefer {@link createWarden}. Validates `options` (throws `InvalidArgumentError`). */
  constructor(options: WardenOptions) {
    const resolved = resolveWardenOptions(options);
    this.clientId = resolved.clientId;
    const parts = buildClient(this, resolved);
    this.ctx = parts.ctx;
    this.lifecycle = parts.lifecycle;
    this.quiesce = () => parts.quiesce();
    this.shutdown = () => parts.shutdown();
    this.renewer = parts.renewer;
    this.services = {
      reportStaleFence: (lock, report) => this.reportStaleFence(lock, report),
    };
  }

  /** The connection to the server: `connecting`, `open`, `down` (reconnecting) or `closed`. */
  get state(): ConnectionState {
    return this.ctx.connection.state;
  }

  /**
   * The WebSocket URL of the server instance in use, or being tried while `state` is not
   * `open` (one of the `url` option's entries).
   */
  get endpoint(): string {
    return this.ctx.connection.url;
  }

  /**
   * Acquires `(resource, businessKey)`, waiting up to `waitMs` (default 10 s). Release the
   * lock when done (`release()`, `await using`), or use {@link Warden.withLock}.
   *
   * @throws LockTimeoutError - not granted within `waitMs`.
   * @throws the `signal`'s reason - the caller gave up (the wait left the server's queue).
   * @throws LockUnavailableError - no tier can grant with cross-process exclusion, or the
   *   server is unreachable and the resource does not allow local locks
   *   (docs/design.md#fail-closed).
   * @throws OutcomeUnknownError - the server may have granted it but the answer was lost;
   *   the SDK releases such a grant in the background (docs/design.md#no-replay-no-guess).
   * @throws UnknownResourceError, InvalidArgumentError, UnauthorizedError
   */
  async acquire(resource: string, businessKey: string, options?: AcquireOptions): Promise<Lock> {
    const request = resolveAcquire(resource, businessKey, options);
    const acquired = await acquireLock(this.ctx, this.lifecycle, request, "wait");
    if (!acquired) throw new Error("unreachable: acquire in wait mode returned no lock");
    return new Lock(acquired.lease, this.services, request.maxHoldMs);
  }

  /**
   * Acquires `(resource, businessKey)` if it is free now (no wait); null when somebody
   * else holds it (or, on a `fair` resource, when others are queued for it).
   *
   * @throws the same errors as {@link Warden.acquire} except `LockTimeoutError`.
   */
  async tryAcquire(
    resource: string,
    businessKey: string,
    options?: Omit<AcquireOptions, "waitMs">,
  ): Promise<Lock | null> {
    const request = resolveAcquire(resource, businessKey, options, 0);
    const acquired = await acquireLock(this.ctx, this.lifecycle, request, "try");
    return acquired && new Lock(acquired.lease, this.services, request.maxHoldMs);
  }

  /**
   * Runs `fn` while holding `(resource, businessKey)`, and releases in `finally`. `fn` gets
   * the lock (pass `lock.signal` to its work, `lock.fence` to the resource) and runs as the
   * lock's owner, so nested acquires of the same key re-enter. If the lock was lost while
   * `fn` ran, `withLock` rejects with that `LeaseLostError` even if `fn` succeeded: its
   * work was not exclusive to the end.
   */
  async withLock<T>(
    resource: string,
    businessKey: string,
    fn: (lock: Lock) => Promise<T> | T,
    options?: AcquireOptions,
  ): Promise<T> {
    const lock = await this.acquire(resource, businessKey, options);
    let result: T;
    try {
      result = await runAsOwner(this, lock.ownerId, () => fn(lock));
    } catch (error) {
      await lock.release();
      throw error;
    }
    await lock.release();
    if (lock.signal.aborted) throw lock.signal.reason;
    return result;
  }

  /**
   * Acquires every key of `businessKeys` in `resource` (1..64 keys), or none: the keys are
   * taken one by one in canonical (sorted) order, so two callers whose sets overlap never
   * deadlock, all within ONE `waitMs` deadline; on any failure the keys taken are released
   * (the last first) and the error is thrown. The set has one `signal` (aborts when any
   * member may be lost), a fence per key, `extend()` and `release()` for all. Keys belong
   * to `resource` of the caller's own tenant, so a set never spans tenants. See README.md,
   * "Coordination recipes".
   *
   * @throws InvalidArgumentError - no keys, more than 64, a key named twice, an invalid
   *   key or option; nothing was sent.
   * @throws LockTimeoutError - not every key was granted within `waitMs`; nothing is held.
   * @throws LeaseLostError - a member taken was lost before the others were granted.
   * @throws the same other errors as {@link Warden.acquire}.
   */
  acquireAll(
    resource: string,
    businessKeys: readonly string[],
    options?: AcquireAllOptions,
  ): Promise<LockSet> {
    return acquireAll(this, resource, businessKeys, options);
  }

  /**
   * Joins the leader election of `(resource, businessKey)`: the candidate that holds the
   * key's lock leads, its term is the grant's fence. `onElected(term)` and
   * `onDemoted(reason)` report its terms; it campaigns again after losing a lease, until
   * `resign()`. `observe()` / `watch()` say who leads. See README.md, "Coordination recipes".
   *
   * @throws UnknownResourceError, InvalidArgumentError - before campaigning.
   */
  campaign(resource: string, businessKey: string, options?: CampaignOptions): Promise<Campaign> {
    return campaign(this, resource, businessKey, options);
  }

  /**
   * Runs `fn` as one task: acquires inside it (without an explicit `ownerId`) share one
   * owner, so a nested acquire of a key the task holds re-enters instead of waiting for
   * itself. `withLock` does this for its callback already.
   */
  task<T>(fn: () => T, ownerId: string = newOwnerId()): T {
    return runAsOwner(this, ownerId, fn);
  }

  /**
   * One key of a semaphore resource (kind `semaphore`, docs/decisions/0161):
   * `acquire({ permits, waitMs, leaseMs })` returns a renewed {@link Permit}.
   *
   * @throws InvalidArgumentError - a malformed resource or key.
   */
  semaphore(resource: string, businessKey: string): Semaphore {
    return new Semaphore(this.ctx, this.permits, { resource, businessKey });
  }

  /**
   * One key of a read-write lock resource (kind `rwlock`, docs/decisions/0166):
   * `read(…)` / `write(…)` (and `tryRead` / `tryWrite`) return a renewed {@link RwLease}.
   *
   * @throws InvalidArgumentError - a malformed resource or key.
   */
  rwLock(resource: string, businessKey: string): RwLock {
    return new RwLock(this.ctx, this.rwLeases, { resource, businessKey });
  }

  /** Who holds `(resource, businessKey)` now, in any tier; null when it is free. */
  async inspect(resource: string, businessKey: string): Promise<LockInfo | null> {
    const key = validateLockKey({ resource, businessKey });
    const { lease } = await clientQuery(
      this.ctx,
      (api, call) => api.lock.inspect.query(key, call),
      "inspect",
      resource,
    );
    return lease;
  }

  /**
   * The policy of `resource` as far as this client acts on it (local fallback, default
   * lease, renewal limit, fairness): fetched from the server when it answers, else the last
   * one known; undefined when the client never learnt it (then an unreachable server means
   * fail-closed for it).
   *
   * @throws UnknownResourceError - the server does not know the resource.
   */
  async policy(resource: string): Promise<KnownPolicy | undefined> {
    validateResource(resource);
    try {
      return await this.ctx.policies.load(resource);
    } catch (error) {
      const context = { operation: "policy", resource };
      const failure = classifyFailure(error, context);
      if (failure.kind === "answer") {
        if (failure.error instanceof UnknownResourceError) this.ctx.policies.forget(resource);
        throw failure.error;
      }
      return this.ctx.policies.get(resource);
    }
  }

  /** Waiters queued for a resource (one key with `businessKey`) on the server, in queue order. */
  async waiters(resource: string, businessKey?: string): Promise<WaiterInfo[]> {
    const input =
      businessKey === undefined
        ? { resource: validateResource(resource) }
        : validateLockKey({ resource, businessKey });
    const result = await clientQuery(
      this.ctx,
      (api, call) => api.holder.waiters.query(input, call),
      "waiters",
      resource,
    );
    return result.waiters;
  }

  /** Counters of this client: the local short-circuit and the bulk renewals. */
  stats(): WardenStats {
    return {
      shortCircuit: this.ctx.shortCircuit.stats,
      renewals: { ...this.renewer.sent },
    };
  }

  /**
   * Stops everything: waits in flight are withdrawn and acquires in flight settle (a grant
   * that crosses the close is released, its caller gets `LockUnavailableError`), held
   * locks are released (their signals abort first: nothing renews them any more), timers
   * stop and the socket closes. Afterwards no
   * timer or socket of this client keeps the process alive. Idempotent.
   */
  close(): Promise<void> {
    this.closed ??= this.closeInOrder();
    return this.closed;
  }

  /**
   * Waits in flight are withdrawn and acquires in flight settle first, so a grant that
   * crosses the close is released too; then permits and read-write grants, then locks;
   * the socket closes last.
   */
  private async closeInOrder(): Promise<void> {
    await this.quiesce();
    await Promise.all([this.permits.releaseAll(), this.rwLeases.releaseAll()]);
    await this.shutdown();
  }

  /** `await using warden = createWarden(…)` closes the client at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private reportStaleFence(lock: Lock, report: StaleFenceReport): void {
    const input = {
      resource: lock.resource,
      businessKey: lock.businessKey,
      fence: lock.fence ?? "0",
      lockId: lock.lockId,
      ownerId: lock.ownerId,
      target: report.target.slice(0, 200),
      ...(report.currentFence === null ? {} : { currentFence: report.currentFence }),
    };
    clientQuery(
      this.ctx,
      (api, call) => api.lock.reportStaleFence.mutate(input, call),
      "reportStaleFence",
      lock.resource,
    ).catch((error: unknown) =>
      this.ctx.options.onError(error, `reporting stale fence ${input.fence}`),
    );
  }
}

/**
 * Creates a Warden client and starts connecting (calls made before the connection is up
 * wait for it, at most `connectTimeoutMs`). Options are validated here.
 *
 * @example
 * ```ts
 * const warden = createWarden({ url: "http://warden:4000", apiKey: process.env.WARDEN_API_KEY! });
 * await warden.withLock("order:settle", orderId, async (lock) => settle(orderId, lock.fence, lock.signal));
 * await warden.close();
 * ```
 * @throws InvalidArgumentError - an option is missing or out of range (the message names it).
 */
export function createWarden(options: WardenOptions): Warden {
  return new Warden(options);
}
