import { TRPCClientError } from "@trpc/client";
import WebSocket from "ws";
import { ReplyLostError, ServerUnreachableError, type TransportError } from "./transport-errors.js";

/** What the socket needs besides its URL. */
export interface RpcSocketOptions {
  /** Sent once, as the first frame (the server builds the call context from it). */
  readonly connectionParams: Readonly<Record<string, string>>;
  /** Quiet time after which the client pings, in ms. */
  readonly pingIntervalMs: number;
  /** How long a ping may go unanswered before the socket counts as dead, in ms. */
  readonly pongTimeoutMs: number;
  /** The socket is open and the connectionParams frame is out: calls may be sent. */
  readonly onOpen: () => void;
  /** The socket is gone (closed, failed, or silent past the pong timeout). Once. */
  readonly onLost: () => void;
}

interface Pending {
  readonly resolve: (data: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
  sent: boolean;
}

/** One frame of the server: a reply to a call, or a notification (id null). */
interface ServerMessage {
  readonly id?: number | string | null;
  readonly method?: string;
  readonly result?: { readonly type?: string; readonly data?: unknown };
  readonly error?: { readonly message: string; readonly code: number; readonly data?: unknown };
}

/**
 * Longest outgoing frame, in UTF-16 code units of its JSON (at most 3 UTF-8 bytes each,
 * so ≤ 24 KiB on the wire): under the server's default 64 KiB message limit, and still
 * ~30 lock calls a frame.
 */
const FRAME_BUDGET = 8 * 1024;

// A graceful close waits for the server's close frame; a frozen server never sends it, and
// the ws library would keep the socket (and the process) alive for 30 s.
const CLOSE_GRACE_MS = 250;

/**
 * One WebSocket to the server speaking tRPC's WebSocket protocol (the server side is
 * `@trpc/server`'s `applyWSSHandler`): `{ id, method: "query" | "mutation", params: { path,
 * input } }` out, `{ id, result: { type: "data", data } }` or `{ id, error }` back, the
 * connectionParams frame first, `PING`/`PONG` keep-alive both ways.
 *
 * Why not `@trpc/client`'s wsLink: on Node it delays every outgoing batch by a
 * `setTimeout(0)` (≥ 1 ms per call, twice per lock cycle) and spends more CPU per call on
 * observables and per-call AbortControllers than the server spends granting the lock
 * (docs/decisions/0041-sdk-wire-client.md). This class keeps the rules that made the
 * wsLink safe here: a call is written at most once, on this socket only; when the socket
 * goes, every call still waiting fails with an unknown outcome and is never re-sent (S8).
 * Calls issued in one turn of the event loop leave together, as JSON arrays (which the
 * server's adapter accepts as a batch) of at most {@link FRAME_BUDGET} characters.
 */
export class RpcSocket {
  private readonly ws: WebSocket;
  private readonly pending = new Map<number, Pending>();
  private outgoing: { id: number; method: string; params: { path: string; input: unknown } }[] = [];
  private flushScheduled = false;
  private nextId = 1;
  private state: "opening" | "open" | "gone" = "opening";
  private pingTimer: NodeJS.Timeout | undefined;
  private pongTimer: NodeJS.Timeout | undefined;

  constructor(
    url: string,
    private readonly options: RpcSocketOptions,
  ) {
    this.ws = new WebSocket(`${url}${url.includes("?") ? "&" : "?"}connectionParams=1`);
    this.ws.on("open", () => this.opened());
    this.ws.on("message", (data, isBinary) => this.received(data, isBinary));
    this.ws.on("close", () => this.gone(new ReplyLostError("the connection to the server closed")));
    this.ws.on("error", (error) =>
      this.gone(new ReplyLostError(`connection error: ${error.message}`, { cause: error })),
    );
  }

  /** True while calls can be sent. */
  get isOpen(): boolean {
    return this.state === "open";
  }

  /**
   * Sends one call and resolves with its result. Fails with `ServerUnreachableError` when
   * the socket was not open to take it (nothing sent), with `ReplyLostError` when no
   * reply came within `timeoutMs` or the socket went (outcome unknown), and with the
   * server's answer as a `TRPCClientError` otherwise.
   */
  request(
    method: "query" | "mutation",
    path: string,
    input: unknown,
    timeoutMs: number,
  ): Promise<unknown> {
    if (this.state !== "open") {
      return Promise.reject(new ServerUnreachableError("the connection is not open"));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ReplyLostError(`no reply within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer, sent: false });
      this.outgoing.push({ id, method, params: { path, input } });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Fails every call still waiting with `error` and closes the socket. */
  async close(error: TransportError): Promise<void> {
    this.gone(error);
    if (this.ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.ws.terminate();
        resolve();
      }, CLOSE_GRACE_MS);
      this.ws.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
      if (this.ws.readyState === WebSocket.CONNECTING) this.ws.terminate();
      else this.ws.close();
    });
  }

  private opened(): void {
    if (this.state !== "opening") return;
    this.ws.send(
      JSON.stringify({ method: "connectionParams", data: this.options.connectionParams }),
    );
    this.state = "open";
    this.heard();
    this.options.onOpen();
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.outgoing;
    this.outgoing = [];
    if (batch.length === 0) return;
    if (this.state !== "open") {
      for (const message of batch) {
        this.fail(message.id, new ServerUnreachableError("the connection closed before sending"));
      }
      return;
    }
    // The server closes a socket that sends a message over its limit (64 KiB by default),
    // which would lose every call in flight: a turn's calls go out in frames of at most
    // FRAME_BUDGET (a single larger call goes alone).
    let frame: string[] = [];
    let frameChars = 0;
    for (const message of batch) {
      const call = this.pending.get(message.id);
      // Its caller already gave up on it (timed out): it is not sent at all.
      if (!call) continue;
      const json = JSON.stringify(message);
      if (frame.length > 0 && frameChars + json.length + 1 > FRAME_BUDGET) {
        this.sendFrame(frame);
        frame = [];
        frameChars = 1;
      }
      frame.push(json);
      frameChars += json.length + 1;
      call.sent = true;
    }
    if (frame.length > 0) this.sendFrame(frame);
  }

  private sendFrame(messages: readonly string[]): void {
    this.ws.send(messages.length === 1 ? messages[0]! : `[${messages.join(",")}]`);
  }

  private received(data: WebSocket.RawData, isBinary: boolean): void {
    this.heard();
    if (isBinary) return;
    const text = textOf(data);
    if (text === "PONG") return;
    if (text === "PING") {
      this.ws.send("PONG");
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
      this.answer(message as ServerMessage);
    }
  }

  private answer(message: ServerMessage): void {
    // `{ id: null, method: "reconnect" }` comes right before a shutdown closes the socket;
    // the close is what ends this socket, so calls in flight still get their replies.
    if (typeof message.id !== "number") return;
    const call = this.pending.get(message.id);
    if (!call) return;
    this.pending.delete(message.id);
    clearTimeout(call.timer);
    if (message.error) call.reject(TRPCClientError.from({ error: message.error }));
    else call.resolve(message.result?.data);
  }

  /** Any frame from the server proves it alive: the ping clock restarts. */
  private heard(): void {
    if (this.state !== "open") return;
    clearTimeout(this.pongTimer);
    this.pongTimer = undefined;
    this.pingTimer?.refresh();
    this.pingTimer ??= unrefTimer(() => this.ping(), this.options.pingIntervalMs);
  }

  private ping(): void {
    if (this.state !== "open") return;
    this.ws.send("PING");
    this.pongTimer ??= unrefTimer(() => {
      this.ws.terminate();
      this.gone(new ReplyLostError(`no pong within ${this.options.pongTimeoutMs} ms`));
    }, this.options.pongTimeoutMs);
  }

  private gone(error: TransportError): void {
    if (this.state === "gone") return;
    this.state = "gone";
    clearTimeout(this.pingTimer);
    clearTimeout(this.pongTimer);
    for (const id of [...this.pending.keys()]) this.fail(id, error);
    this.outgoing = [];
    this.options.onLost();
  }

  private fail(id: number, error: TransportError): void {
    const call = this.pending.get(id);
    if (!call) return;
    this.pending.delete(id);
    clearTimeout(call.timer);
    // A call that never left has a known outcome: nothing happened.
    call.reject(call.sent ? error : new ServerUnreachableError(error.message, { cause: error }));
  }
}

function textOf(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  return (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)).toString("utf8");
}

function unrefTimer(run: () => void, ms: number): NodeJS.Timeout {
  const timer = setTimeout(run, ms);
  timer.unref();
  return timer;
}
