/** What {@link createWarden} takes. Durations are in milliseconds. */
export interface WardenOptions {
  /**
   * The Warden server: `http(s)://host:port` (the SDK connects to its `/trpc` WebSocket)
   * or the WebSocket URL itself, `ws(s)://host:port/trpc`. Several instances of one
   * fleet: an array of such URLs or one comma-separated string (1..32). On a failed or
   * lost connection the client reconnects to the next one in turn (jittered backoff);
   * held locks are renewed and new waits queued through whichever instance it reaches.
   */
  readonly url: string | readonly string[];
  /** The tenant's API key (`wdn_…`). Sent once per connection, never in a URL. */
  readonly apiKey: string;
  /**
   * Names this SDK instance in holders, audit events and the console: 1..128 bytes.
   * @defaultValue `<hostname>-<pid>-<4 random hex digits>`
   */
  readonly clientId?: string;
  /**
   * Longest wait for the reply of one call beyond its server-side wait, in ms. A lock
   * call without a reply by then has an unknown outcome.
   * @defaultValue 5000
   */
  readonly requestTimeoutMs?: number;
  /**
   * How long a lock call waits for a connection that is being opened (at start or while
   * reconnecting), in ms. A client whose last attempt failed does not wait: it is
   * unreachable until the next attempt succeeds.
   * @defaultValue 3000
   */
  readonly connectTimeoutMs?: number;
  /**
   * First reconnect delay ceiling, in ms; doubles per failed attempt (full jitter).
   * @defaultValue 100
   */
  readonly reconnectBaseDelayMs?: number;
  /**
   * Largest reconnect delay ceiling, in ms.
   * @defaultValue 5000
   */
  readonly reconnectMaxDelayMs?: number;
  /**
   * How often the client pings the server to notice a dead connection, in ms.
   * @defaultValue 5000
   */
  readonly pingIntervalMs?: number;
  /**
   * How long a ping may go unanswered before the connection counts as dead, in ms.
   * @defaultValue 3000
   */
  readonly pongTimeoutMs?: number;
  /**
   * How often the client reports itself (clientId, host, pid, SDK version, tier), in ms.
   * @defaultValue 5000
   */
  readonly heartbeatIntervalMs?: number;
  /**
   * How long before the lease's earliest possible expiry a lock whose renewal is not
   * confirmed counts as lost, in ms (capped at a third of the lease). It absorbs clock
   * drift and timer lateness, and is the time the holder has to stop after
   * `lock.signal` aborts.
   * @defaultValue 500
   */
  readonly safetyMarginMs?: number;
  /**
   * Resources whose policy the client fetches on every connect, so that local fallback
   * decisions (`localFallback: allow`) are possible even if the server becomes
   * unreachable before this client has used them.
   * @defaultValue `[]`
   */
  readonly resources?: readonly string[];
  /**
   * When false, the client never makes in-process locks, whatever a resource's policy
   * says: an unreachable server always means `LockUnavailableError`.
   * @defaultValue true
   */
  readonly localFallback?: boolean;
  /**
   * The local short-circuit of `tryAcquire`: a key this client has just seen held by
   * someone else is refused locally, without a round trip, until the observed lease ends
   * or the server says the key was freed — a refusal only, never a grant, and only on
   * resources that are not `fair` (the server decides). `false` turns it off;
   * `{ offFor: [...] }` turns it off for those resources only. `warden.stats()` counts it.
   * @defaultValue true
   */
  readonly shortCircuit?: boolean | { readonly offFor: readonly string[] };
  /**
   * Receives errors of background work that has no caller to throw to: a release that
   * must be retried, a heartbeat or stale-fence report that failed. Lock loss is never
   * reported here only: it aborts `lock.signal`.
   * @defaultValue a no-op
   */
  readonly onError?: (error: unknown, context: string) => void;
}

/** Defaults of {@link WardenOptions}, in ms where a duration. */
export const WARDEN_DEFAULTS = Object.freeze({
  requestTimeoutMs: 5_000,
  connectTimeoutMs: 3_000,
  reconnectBaseDelayMs: 100,
  reconnectMaxDelayMs: 5_000,
  pingIntervalMs: 5_000,
  pongTimeoutMs: 3_000,
  heartbeatIntervalMs: 5_000,
  safetyMarginMs: 500,
  localFallback: true,
  shortCircuit: true,
});
