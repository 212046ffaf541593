import { monotonicNow } from "../time/monotonic.js";
import type { Connection } from "../transport/connection.js";

/** The parts of a resource's policy the SDK acts on. */
export interface KnownPolicy {
  /** `allow`: in-process locks when no shared tier is reachable; `deny`: fail closed. */
  readonly localFallback: "deny" | "allow";
  /** Lease of an acquire that names none, in ms. */
  readonly defaultLeaseMs: number;
  /** Renewals one grant may make; null = unlimited. */
  readonly maxRenewals: number | null;
  /** Waiters are served first come, first served. */
  readonly fair: boolean;
}

// A policy edit reaches a client within this long (or at its next reconnect).
const REFRESH_AFTER_MS = 60_000;

/**
 * Resource policies as the server last said them, so the client can decide local
 * fallback when the server is unreachable. A resource never fetched has no policy here,
 * and an unreachable server then means fail-closed (docs/design.md#fail-closed).
 */
export class PolicyCache {
  private readonly policies = new Map<string, { policy: KnownPolicy; fetchedAt: number }>();
  private readonly fetching = new Map<string, Promise<KnownPolicy | undefined>>();

  constructor(
    private readonly connection: Connection,
    private readonly requestTimeoutMs: number,
    private readonly onError: (error: unknown, context: string) => void,
  ) {}

  /** The last known policy of `resource`. */
  get(resource: string): KnownPolicy | undefined {
    return this.policies.get(resource)?.policy;
  }

  /** The resource is unknown to the server (or retired): forget its policy. */
  forget(resource: string): void {
    this.policies.delete(resource);
  }

  /** Fetches the policy in the background when it is missing or older than a minute. */
  refreshSoon(resource: string): void {
    const known = this.policies.get(resource);
    if (known && monotonicNow() - known.fetchedAt < REFRESH_AFTER_MS) return;
    void this.fetch(resource);
  }

  /** Fetches the policy now; failures go to `onError` (the cache keeps what it had). */
  fetch(resource: string): Promise<void> {
    return this.load(resource).then(
      () => undefined,
      (error: unknown) => this.onError(error, `fetching the policy of ${resource}`),
    );
  }

  /**
   * Fetches the policy now (one request per resource at a time) and returns it; undefined
   * for a retired resource.
   */
  load(resource: string): Promise<KnownPolicy | undefined> {
    const running = this.fetching.get(resource);
    if (running) return running;
    const done = this.connection
      .call((api, call) => api.resource.get.query({ name: resource }, call), this.requestTimeoutMs)
      .then((view) => {
        if (view.retiredAt !== null) {
          this.forget(resource);
          return undefined;
        }
        const policy: KnownPolicy = {
          localFallback: view.localFallback,
          defaultLeaseMs: view.defaultLeaseMs,
          maxRenewals: view.maxRenewals,
          fair: view.fair,
        };
        this.policies.set(resource, { policy, fetchedAt: monotonicNow() });
        return policy;
      })
      .finally(() => this.fetching.delete(resource));
    this.fetching.set(resource, done);
    return done;
  }
}
