import { createTRPCClient, createWSClient, wsLink, type TRPCWebSocketClient } from "@trpc/client";
import WebSocketImpl from "ws";
import type { ResolvedWardenOptions } from "../options/resolve-warden-options.js";
import { fullJitterDelayMs } from "../time/full-jitter.js";
import { monotonicNow } from "../time/monotonic.js";
import { backgroundTimeout } from "../time/timers.js";
import type { ApiClient } from "./api-client.js";
import { ClientClosedError, ReplyLostError, ServerUnreachableError } from "./transport-errors.js";

/** Where the connection is: being opened, usable, lost (a retry is scheduled), or closed for good. */
export type ConnectionState = "connecting" | "open" | "down" | "closed";

/** One WebSocket client; a reconnect makes a new one, so nothing of the old one is re-sent. */
interface Generation {
  readonly ws: TRPCWebSocketClient;
  readonly api: ApiClient;
  open: boolean;
}

// tRPC's own reconnect loop only runs between a socket's loss and our `lost()` closing
// that client (the same tick) or after a server-requested reconnect; keep it short.
const TRPC_RETRY_MS = 100;
// Longest a connection attempt may take before it counts as failed, in ms (at least).
const MIN_ATTEMPT_MS = 1_000;
// The socket is usable once tRPC has also sent the connectionParams frame.
const OPEN_CHECKS = 200;

/**
 * The client's one persistent, multiplexed WebSocket. tRPC fails the queries and mutations
 * pending on a socket that closes and does not send them again (checked in
 * `@trpc/client` 11.25.2's wsClient: `failPendingRequests`); on top of that this class
 * never lets a tRPC client outlive its socket: a lost socket ends its client, and the
 * reconnect (capped exponential backoff, full jitter) builds a new one. A command is
 * therefore sent at most once, on the socket that was open when it was issued (S8).
 */
export class Connection {
  private generation: Generation | null = null;
  private current: ConnectionState = "connecting";
  private attempt = 0;
  private downSince: number | null = null;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly inflight = new Set<AbortController>();
  private readonly changeListeners = new Set<(state: ConnectionState) => void>();

  constructor(private readonly options: ResolvedWardenOptions) {
    this.connect();
  }

  /** The current state. */
  get state(): ConnectionState {
    return this.current;
  }

  /** Calls `listener` on every state change; returns the unsubscribe function. */
  onChange(listener: (state: ConnectionState) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /**
   * Runs one call on the open socket, bounded by `timeoutMs`. Waits for a socket that is
   * being opened (at most `connectTimeoutMs`, or until `signal` aborts) unless the server
   * has been unreachable for longer than that, in which case it fails at once.
   *
   * @throws ServerUnreachableError - nothing was sent.
   * @throws ReplyLostError - sent, no reply in time or the socket dropped: outcome unknown.
   * @throws ClientClosedError - the client was closed meanwhile.
   */
  async call<T>(
    run: (api: ApiClient, signal: AbortSignal) => Promise<T>,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<T> {
    const generation = await this.ready(signal);
    const controller = new AbortController();
    this.inflight.add(controller);
    // Ref'd on purpose: the caller awaits this call.
    const timer = setTimeout(
      () => controller.abort(new ReplyLostError(`no reply within ${timeoutMs} ms`)),
      timeoutMs,
    );
    try {
      return await run(generation.api, controller.signal);
    } catch (error) {
      if (controller.signal.aborted) throw controller.signal.reason;
      throw error;
    } finally {
      clearTimeout(timer);
      this.inflight.delete(controller);
    }
  }

  /** Stops reconnecting, ends the calls in flight and closes the socket. Idempotent. */
  async close(): Promise<void> {
    if (this.current === "closed") return;
    this.setState("closed");
    clearTimeout(this.retryTimer);
    for (const controller of this.inflight) controller.abort(new ClientClosedError());
    const generation = this.generation;
    this.generation = null;
    if (generation) await closeGeneration(generation);
  }

  private async ready(signal?: AbortSignal): Promise<Generation> {
    const open = this.openGeneration();
    if (open) return open;
    if (this.current === "closed") throw new ClientClosedError();
    const waitedMs = this.downSince === null ? 0 : monotonicNow() - this.downSince;
    const leftMs = this.options.connectTimeoutMs - waitedMs;
    if (leftMs <= 0) {
      throw new ServerUnreachableError(`no connection to ${this.options.wsUrl}`);
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
    throw new ServerUnreachableError(`no connection to ${this.options.wsUrl}`);
  }

  private openGeneration(): Generation | null {
    const generation = this.generation;
    if (!generation?.open) return null;
    // A socket tRPC has started closing (a missed pong) is lost now, not when its close
    // handshake ends: a call on it would make tRPC reopen that client behind our back.
    if (!usable(generation)) {
      this.lost(generation);
      return null;
    }
    return generation;
  }

  private connect(): void {
    if (this.current === "closed") return;
    const { wsUrl, apiKey, clientId, pingIntervalMs, pongTimeoutMs } = this.options;
    // Filled in right below; the callbacks only run once the socket has events.
    const holder: { generation?: Generation } = {};
    const lost = () => {
      if (holder.generation) this.lost(holder.generation);
    };
    const ws = createWSClient({
      url: wsUrl,
      WebSocket: WebSocketImpl as unknown as typeof WebSocket,
      connectionParams: { apiKey, clientId },
      retryDelayMs: () => TRPC_RETRY_MS,
      keepAlive: { enabled: true, intervalMs: pingIntervalMs, pongTimeoutMs },
      onError: lost,
      onClose: lost,
    });
    const generation: Generation = {
      ws,
      api: createTRPCClient({ links: [wsLink({ client: ws })] }),
      open: false,
    };
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
    ws.connectionState.subscribe({
      next: (state) => {
        if (state.state === "pending") void this.confirmOpen(generation);
      },
    });
  }

  /** tRPC says "pending" once the socket opened; it is usable once connectionParams are out. */
  private async confirmOpen(generation: Generation): Promise<void> {
    for (let i = 0; i < OPEN_CHECKS && !usable(generation); i++) {
      if (this.generation !== generation) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (this.generation !== generation || !usable(generation) || generation.open) return;
    generation.open = true;
    this.attempt = 0;
    this.downSince = null;
    this.setState("open");
  }

  private lost(generation: Generation): void {
    if (this.generation !== generation) return;
    // After a server-requested reconnect tRPC may serve from a newer socket already.
    if (generation.open && usable(generation)) return;
    generation.open = false;
    this.generation = null;
    // Closing the tRPC client first stops its own reconnect: it must never send again.
    void closeGeneration(generation);
    if (this.current === "closed") return;
    this.downSince ??= monotonicNow();
    this.setState("down");
    const delayMs = fullJitterDelayMs(
      this.attempt++,
      this.options.reconnectBaseDelayMs,
      this.options.reconnectMaxDelayMs,
    );
    this.retryTimer = backgroundTimeout(() => this.connect(), delayMs);
  }

  private setState(state: ConnectionState): void {
    if (this.current === state) return;
    this.current = state;
    for (const listener of [...this.changeListeners]) listener(state);
  }
}

// A graceful close waits for the server's close frame; a frozen server never sends it, and
// the ws library would keep the socket (and the process) alive for 30 s.
const CLOSE_GRACE_MS = 250;

async function closeGeneration(generation: Generation): Promise<void> {
  const socket = generation.ws.connection?.ws as unknown as WebSocketImpl | undefined;
  // tRPC's close waits for a socket still opening; terminating it is what ends that wait.
  const closed = generation.ws.close().catch(() => undefined);
  if (socket && socket.readyState !== WebSocketImpl.CLOSED) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        socket.terminate();
        resolve();
      }, CLOSE_GRACE_MS);
      socket.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  await closed;
}

function usable(generation: Generation): boolean {
  return generation.ws.connection?.state === "open";
}
