import type { ResolvedWardenOptions } from "../options/resolve-warden-options.js";
import { fullJitterDelayMs } from "../time/full-jitter.js";
import { monotonicNow } from "../time/monotonic.js";
import { backgroundTimeout } from "../time/timers.js";
import { apiOver, type ApiClient } from "./api-client.js";
import { LockSocket, type RenewItem, type RenewReply, type RevokeRequest } from "./lock-socket.js";
import { ClientClosedError, ReplyLostError, ServerUnreachableError } from "./transport-errors.js";

/** Where the connection is: being opened, usable, lost (a retry is scheduled), or closed for good. */
export type ConnectionState = "connecting" | "open" | "down" | "closed";

/** One socket; a reconnect makes a new one, so nothing of the old one is re-sent. */
interface Generation {
  readonly socket: LockSocket;
  readonly api: ApiClient;
  open: boolean;
}

// Longest a connection attempt may take before it counts as failed, in ms (at least).
const MIN_ATTEMPT_MS = 1_000;
/**
 * Longest a draining server's socket is kept for the replies of what was sent on it, in ms;
 * the server closes it sooner (its shutdown grace), this bounds a server that never does.
 */
const DRAINING_KEEP_MS = 30_000;

/**
 * The client's one persistent, multiplexed WebSocket ({@link LockSocket}). A socket fails
 * the calls pending on it when it goes and never sends them again; a lost socket is never
 * reused, and the reconnect (capped exponential backoff, full jitter) opens a new one. A
 * command is therefore sent at most once, on the socket that was open when it was issued
 * (docs/design.md#no-replay-no-guess).
 *
 * With several endpoints (instances of one fleet), the first attempt goes to a random one
 * (clients spread over the fleet) and every failed or lost connection moves on to the
 * next in the list, round robin; the backoff ceiling grows once per full round, so a dead
 * instance costs one short jittered delay, not a long one (docs/decisions/0140).
 */
export class Connection {
  private generation: Generation | null = null;
  /** Sockets of servers shutting down, kept for the replies of what was sent on them. */
  private readonly drainingGenerations = new Set<Generation>();
  private current: ConnectionState = "connecting";
  private attempt = 0;
  /** Index in `options.wsUrls` of the endpoint being tried or in use. */
  private endpoint: number;
  private downSince: number | null = null;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly changeListeners = new Set<(state: ConnectionState) => void>();
  private readonly releasedListeners = new Set<
    (keys: readonly (readonly [string, string])[]) => void
  >();

  private readonly revokeListeners = new Set<(request: RevokeRequest) => void>();

  constructor(private readonly options: ResolvedWardenOptions) {
    this.endpoint = Math.floor(Math.random() * options.wsUrls.length);
    this.connect();
  }

  /** The current state. */
  get state(): ConnectionState {
    return this.current;
  }

  /** The WebSocket URL of the endpoint in use (or being tried). */
  get url(): string {
    return this.options.wsUrls[this.endpoint]!;
  }

  /** Calls `listener` on every state change; returns the unsubscribe function. */
  onChange(listener: (state: ConnectionState) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Calls `listener` with the keys the server says were freed (watched keys only). */
  onReleased(listener: (keys: readonly (readonly [string, string])[]) => void): () => void {
    this.releasedListeners.add(listener);
    return () => this.releasedListeners.delete(listener);
  }

  /** Calls `listener` with every revoke request the server pushes (decision 0176). */
  onRevokeRequested(listener: (request: RevokeRequest) => void): () => void {
    this.revokeListeners.add(listener);
    return () => this.revokeListeners.delete(listener);
  }

  /**
   * Renews many leases with one command, on the open socket or the one being opened
   * (like {@link Connection.call}).
   *
   * @throws ServerUnreachableError - nothing was sent.
   * @throws ReplyLostError - sent, no reply in time or the socket dropped: outcome unknown.
   */
  async renew(items: readonly RenewItem[], timeoutMs: number): Promise<RenewReply> {
    const generation = this.openGeneration() ?? (await this.ready());
    return generation.socket.renew(items, timeoutMs);
  }

  /**
   * Runs one call on the open socket; `run` gets the API and the call's reply deadline
   * (`timeoutMs`) to pass on. Waits for a socket that is being opened (at most
   * `connectTimeoutMs`, or until `signal` aborts) unless the server has been unreachable
   * for longer than that, in which case it fails at once.
   *
   * @throws ServerUnreachableError - nothing was sent.
   * @throws ReplyLostError - sent, no reply in time or the socket dropped: outcome unknown.
   * @throws ClientClosedError - the client was closed meanwhile.
   */
  async call<T>(
    run: (api: ApiClient, options: { readonly timeoutMs: number }) => Promise<T>,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<T> {
    const generation = this.openGeneration() ?? (await this.ready(signal));
    return run(generation.api, { timeoutMs });
  }

  /** Stops reconnecting, ends the calls in flight and closes the socket. Idempotent. */
  async close(): Promise<void> {
    if (this.current === "closed") return;
    this.setState("closed");
    clearTimeout(this.retryTimer);
    const generation = this.generation;
    this.generation = null;
    const draining = [...this.drainingGenerations];
    this.drainingGenerations.clear();
    await Promise.all(
      [...(generation ? [generation] : []), ...draining].map((each) =>
        each.socket.close(new ClientClosedError()),
      ),
    );
  }

  private async ready(signal?: AbortSignal): Promise<Generation> {
    const open = this.openGeneration();
    if (open) return open;
    if (this.current === "closed") throw new ClientClosedError();
    const waitedMs = this.downSince === null ? 0 : monotonicNow() - this.downSince;
    const leftMs = this.options.connectTimeoutMs - waitedMs;
    if (leftMs <= 0) {
      throw new ServerUnreachableError(`no connection to ${this.options.wsUrls.join(", ")}`);
    }
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, leftMs);
      const unsubscribe = this.onChange((state) => {
        if (state === "open" || state === "closed") done();
      });
      signal?.addEventListener("abort", done, { once: true });
    });
    signal?.throwIfAborted();
    const generation = this.openGeneration();
    if (generation) return generation;
    if (this.state === "closed") throw new ClientClosedError();
    throw new ServerUnreachableError(`no connection to ${this.options.wsUrls.join(", ")}`);
  }

  private openGeneration(): Generation | null {
    const generation = this.generation;
    return generation?.open && generation.socket.isOpen ? generation : null;
  }

  private connect(): void {
    if (this.current === "closed") return;
    const { apiKey, clientId, pingIntervalMs, pongTimeoutMs } = this.options;
    const wsUrl = this.url;
    // Filled in right below; the callbacks only run once the socket has events.
    const holder: { generation?: Generation } = {};
    const socket = new LockSocket(wsUrl, {
      connectionParams: { apiKey, clientId },
      pingIntervalMs,
      pongTimeoutMs,
      onOpen: () => {
        if (holder.generation) this.opened(holder.generation);
      },
      onLost: () => {
        if (!holder.generation) return;
        this.drainingGenerations.delete(holder.generation);
        this.lost(holder.generation);
      },
      onReleased: (keys) => {
        for (const listener of [...this.releasedListeners]) listener(keys);
      },
      onRevokeRequested: (request) => {
        for (const listener of [...this.revokeListeners]) listener(request);
      },
      onDraining: () => {
        if (holder.generation) this.draining(holder.generation);
      },
    });
    const generation: Generation = { socket, api: apiOver(socket), open: false };
    holder.generation = generation;
    this.generation = generation;
    if (this.current !== "connecting") this.setState("connecting");
    // An attempt whose handshake is never answered (a frozen server, a black-holed route)
    // would otherwise stay "connecting" for as long as TCP lets it.
    backgroundTimeout(
      () => {
        if (!generation.open) this.lost(generation);
      },
      Math.max(MIN_ATTEMPT_MS, this.options.connectTimeoutMs),
    );
  }

  private opened(generation: Generation): void {
    if (this.generation !== generation || generation.open) return;
    generation.open = true;
    this.attempt = 0;
    this.downSince = null;
    this.setState("open");
  }

  private lost(generation: Generation): void {
    if (this.generation !== generation) return;
    generation.open = false;
    this.generation = null;
    // The old socket never sends again; closing it fails what is still pending on it.
    void generation.socket.close(new ReplyLostError("the connection to the server was lost"));
    if (this.current === "closed") return;
    this.downSince ??= monotonicNow();
    // Round robin: the next attempt goes to the next endpoint, whether this one failed to
    // open or was lost after working.
    const endpoints = this.options.wsUrls.length;
    this.endpoint = (this.endpoint + 1) % endpoints;
    this.setState("down");
    const delayMs = fullJitterDelayMs(
      Math.floor(this.attempt++ / endpoints),
      this.options.reconnectBaseDelayMs,
      this.options.reconnectMaxDelayMs,
    );
    this.retryTimer = backgroundTimeout(() => this.connect(), delayMs);
  }

  /**
   * The socket's server is shutting down (decision 0186). New calls wait for a socket to
   * the next endpoint, opened at once; what was sent on this one is answered on it (a
   * withdrawn wait as WAIT_CANCELLED, retried on the new socket), so nothing is sent to an
   * instance while it closes — a command in flight then would be an unknown outcome.
   */
  private draining(generation: Generation): void {
    if (this.generation !== generation || this.current === "closed") return;
    generation.open = false;
    this.generation = null;
    this.drainingGenerations.add(generation);
    backgroundTimeout(() => {
      void generation.socket.close(
        new ReplyLostError("the server that was shutting down kept the connection open"),
      );
    }, DRAINING_KEEP_MS);
    this.endpoint = (this.endpoint + 1) % this.options.wsUrls.length;
    this.connect();
  }

  private setState(state: ConnectionState): void {
    if (this.current === state) return;
    this.current = state;
    for (const listener of [...this.changeListeners]) listener(state);
  }
}
