import {
  LeaseLostError,
  LocalLockStore,
  LockUnavailableError,
  UnknownResourceError,
  validateResource,
  type Tier,
} from "@warden/core";
import { acquireLock } from "../acquire/acquire-lock.js";
import { CleanupQueue } from "../cleanup/cleanup-queue.js";
import type { StaleFenceReport } from "../guards/fenced-holder.js";
import { Heartbeat } from "../heartbeat/heartbeat.js";
import { LeaseRegistry } from "../lease/lease-registry.js";
import type { LeaseLifecycle } from "../lease/lease.js";
import { LocalBackend } from "../local/local-backend.js";
import { LocalModeTracker } from "../local/local-mode.js";
import { LocalWaits } from "../local/local-waits.js";
import { Lock, type LockServices } from "../lock/lock.js";
import type { AcquireOptions } from "../options/acquire-options.js";
import { resolveAcquire } from "../options/resolve-acquire-options.js";
import { resolveWardenOptions } from "../options/resolve-warden-options.js";
import type { WardenOptions } from "../options/warden-options.js";
import { newOwnerId, runAsOwner } from "../owner/owner-scope.js";
import { PolicyCache, type KnownPolicy } from "../policy/policy-cache.js";
import { RemoteBackend } from "../remote/remote-backend.js";
import "../polyfill/async-dispose.js";
import type { ApiClient } from "../transport/api-client.js";
import { Connection, type ConnectionState } from "../transport/connection.js";
import { classifyFailure, failureToError } from "../transport/map-error.js";
import { AcquireTracker } from "./acquire-tracker.js";
import type { ClientContext } from "./client-context.js";
import type { LockInfo, WaiterInfo } from "./views.js";

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
  private readonly heartbeat: Heartbeat;
  private closed: Promise<void> | null = null;

  /** Prefer {@link createWarden}. Validates `options` (throws `InvalidArgumentError`). */
  constructor(options: WardenOptions) {
    const resolved = resolveWardenOptions(options);
    this.clientId = resolved.clientId;
    const connection = new Connection(resolved);
    const registry = new LeaseRegistry();
    const acquiring = new AcquireTracker();
    const localWaits = new LocalWaits();
    const localStore = new LocalLockStore();
    const cleanup = new CleanupQueue({
      connection,
      registry,
      clientId: resolved.clientId,
      requestTimeoutMs: resolved.requestTimeoutMs,
      onError: resolved.onError,
      acquiring: (resource, businessKey, ownerId) => acquiring.has(resource, businessKey, ownerId),
    });
    const ctx: ClientContext = {
      owner: this,
      options: resolved,
      connection,
      registry,
      acquiring,
      policies: new PolicyCache(connection, resolved.requestTimeoutMs, resolved.onError),
      cleanup,
      remote: new RemoteBackend({
        connection,
        cleanup,
        requestTimeoutMs: resolved.requestTimeoutMs,
        onError: resolved.onError,
        noteTier: (tier) => {
          ctx.serverTier = tier;
        },
      }),
      localStore,
      local: new LocalBackend(localStore, (lease) =>
        localWaits.notify(lease.resource, lease.businessKey),
      ),
      localWaits,
      localMode: new LocalModeTracker(),
      serverTier: null,
      closing: false,
    };
    this.ctx = ctx;
    this.lifecycle = {
      ended: (lease) => {
        registry.ended(lease);
        ctx.localMode.stopped(lease.tier);
        if (lease.backendKind === "local") localWaits.notify(lease.resource, lease.businessKey);
      },
      releasing: (lease) => {
        const current = registry.byId(lease.lockId) === lease;
        registry.remove(lease);
        return current;
      },
    };
    this.services = {
      reportStaleFence: (lock, report) => this.reportStaleFence(lock, report),
    };
    this.heartbeat = new Heartbeat({
      connection,
      localMode: ctx.localMode,
      intervalMs: resolved.heartbeatIntervalMs,
      requestTimeoutMs: resolved.requestTimeoutMs,
      onError: resolved.onError,
      tier: () => this.tierInUse(),
    });
    connection.onChange((state) => {
      if (state === "open") for (const name of resolved.resources) void ctx.policies.fetch(name);
    });
  }

  /** The connection to the server: `connecting`, `open`, `down` (reconnecting) or `closed`. */
  get state(): ConnectionState {
    return this.ctx.connection.state;
  }

  /**
   * Acquires `(resource, businessKey)`, waiting up to `waitMs` (default 10 s). Release the
   * lock when done (`release()`, `await using`), or use {@link Warden.withLock}.
   *
   * @throws LockTimeoutError - not granted within `waitMs`.
   * @throws the `signal`'s reason - the caller gave up (the wait left the server's queue).
   * @throws LockUnavailableError - no tier can grant with cross-process exclusion, or the
   *   server is unreachable and the resource does not allow local locks (S5).
   * @throws OutcomeUnknownError - the server may have granted it but the answer was lost;
   *   the SDK releases such a grant in the background (S8).
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
   * Runs `fn` as one task: acquires inside it (without an explicit `ownerId`) share one
   * owner, so a nested acquire of a key the task holds re-enters instead of waiting for
   * itself. `withLock` does this for its callback already.
   */
  task<T>(fn: () => T, ownerId: string = newOwnerId()): T {
    return runAsOwner(this, ownerId, fn);
  }

  /** Who holds `(resource, businessKey)` now, in any tier; null when it is free. */
  async inspect(resource: string, businessKey: string): Promise<LockInfo | null> {
    const request = resolveAcquire(resource, businessKey, {}, 0);
    const { lease } = await this.query(
      (api, signal) => api.lock.inspect.query(request, { signal }),
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
    resolveAcquire(resource, businessKey ?? "-", {}, 0);
    const input = businessKey === undefined ? { resource } : { resource, businessKey };
    const result = await this.query(
      (api, signal) => api.holder.waiters.query(input, { signal }),
      "waiters",
      resource,
    );
    return result.waiters;
  }

  /**
   * Stops everything: held locks are released (their signals abort first: nothing renews
   * them any more), waits in flight end, timers stop and the socket closes. Afterwards no
   * timer or socket of this client keeps the process alive. Idempotent.
   */
  close(): Promise<void> {
    this.closed ??= this.shutdown();
    return this.closed;
  }

  /** `await using warden = createWarden(…)` closes the client at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private async shutdown(): Promise<void> {
    const { ctx } = this;
    ctx.closing = true;
    this.heartbeat.stop();
    await Promise.allSettled(
      ctx.registry
        .all()
        .map((lease) =>
          lease.terminate(new LeaseLostError(lease.lockId, "the Warden client was closed")),
        ),
    );
    ctx.cleanup.close();
    await ctx.connection.close();
    await ctx.localStore.close();
  }

  private async query<T>(
    run: (api: ApiClient, signal: AbortSignal) => Promise<T>,
    operation: string,
    resource: string,
  ): Promise<T> {
    if (this.ctx.closing) throw new LockUnavailableError("the Warden client is closed");
    try {
      return await this.ctx.connection.call(run, this.ctx.options.requestTimeoutMs);
    } catch (error) {
      const context = { operation, resource };
      throw failureToError(classifyFailure(error, context), context);
    }
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
    this.query(
      (api, signal) => api.lock.reportStaleFence.mutate(input, { signal }),
      "reportStaleFence",
      lock.resource,
    ).catch((error: unknown) =>
      this.ctx.options.onError(error, `reporting stale fence ${input.fence}`),
    );
  }

  private tierInUse(): Tier {
    return this.ctx.localMode.localSinceMs !== null ? "local" : (this.ctx.serverTier ?? "redis");
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
