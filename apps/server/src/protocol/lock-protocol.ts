import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocket } from "ws";
import { watchCaller, type CallerCredentials } from "../auth/watch-caller.js";
import { limitsOf } from "../config.js";
import { createContextInner, type Services } from "../context.js";
import { requestMetaOf } from "../http/request-meta.js";
import { LockConnection } from "./lock-connection.js";
import { LOCK_SUBPROTOCOL } from "./wire.js";

/** True when a WebSocket upgrade asks for the batched lock protocol. */
export function wantsLockProtocol(req: IncomingMessage): boolean {
  const offered = req.headers["sec-websocket-protocol"];
  if (typeof offered !== "string") return false;
  return offered.split(",").some((protocol) => protocol.trim() === LOCK_SUBPROTOCOL);
}

/** Serves the batched lock protocol on accepted WebSockets. */
export class LockProtocol {
  private readonly connections = new Set<LockConnection>();
  private stopping = false;

  constructor(
    private readonly services: Services,
    /** The WebSocket server's message limit, told to every client in a `limits` push. */
    private readonly maxFrameBytes = 64 * 1024,
  ) {}

  // The hello's key: revoking it closes the socket (4401), and sockets per key are capped
  // (4429) like the tRPC WebSocket's (auth/credential-watch.ts).
  private watch(ws: WebSocket, credentials: CallerCredentials): void {
    try {
      const unwatch = watchCaller(
        this.services,
        credentials,
        "socket",
        limitsOf(this.services.config).maxSocketsPerCredential,
        () => ws.close(4401, "credential revoked"),
      );
      ws.once("close", unwatch);
    } catch {
      ws.close(4429, "too many sockets for this credential");
    }
  }

  /** Takes over an upgraded socket whose client chose {@link LOCK_SUBPROTOCOL}. */
  accept(ws: WebSocket, socket: Duplex, req: IncomingMessage): void {
    const controller = new AbortController();
    const connection = new LockConnection(ws, socket, {
      services: this.services,
      notifier: this.services.notifier,
      maxFrameBytes: this.maxFrameBytes,
      contextOf: (connectionParams) => {
        const meta = requestMetaOf(req, {
          transport: "ws",
          signal: controller.signal,
          setCookie: null,
          connectionParams,
          trustedProxies: limitsOf(this.services.config).trustedProxies,
        });
        if (connectionParams) this.watch(ws, meta);
        return createContextInner(this.services, meta);
      },
      controller,
      stopping: () => this.stopping,
    });
    this.connections.add(connection);
    ws.once("close", () => this.connections.delete(connection));
  }

  /**
   * The server began shutting down: from now on a new waiting acquire (lock or semaphore)
   * is answered WAIT_CANCELLED at once, like the waits the shutdown withdrew, and the SDK
   * retries it on another instance. Other calls (release, extend, try-acquire) are served
   * until the sockets close. Every client is told to move to another instance (decision
   * 0186), before the waits are withdrawn so the notice reaches it first.
   */
  beginShutdown(): void {
    this.stopping = true;
    for (const connection of this.connections) connection.drain();
  }

  /**
   * Closes every lock-protocol socket for a shutdown, each once the replies of its
   * commands in progress have left (at most `withinMs`), see {@link LockConnection.shutdown}.
   */
  async closeAll(code: number, reason: string, withinMs: number): Promise<void> {
    await Promise.all(
      [...this.connections].map((connection) => connection.shutdown(code, reason, withinMs)),
    );
  }
}
