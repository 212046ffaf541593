import { TRPCClientError } from "@trpc/client";
import WebSocket from "ws";
import { liveSpanActive, traced, traceCarrier } from "../telemetry/tracing.js";
import { ReplyLostError, ServerUnreachableError, type TransportError } from "./transport-errors.js";

/**
 * The server's batched lock protocol (apps/server/src/protocol/wire.ts,
 * docs/decisions/0065-batched-lock-protocol.md): the subprotocol this socket asks for.
 */
export const LOCK_SUBPROTOCOL = "warden-lock.1";

/** What a {@link LockSocket} needs besides its URL. */
export interface LockSocketOptions {
  /** Sent once, in the hello frame (the server authenticates every frame with it). */
  readonly connectionParams: Readonly<Record<string, string>>;
  /** Quiet time after which the client pings, in ms. */
  readonly pingIntervalMs: number;
  /** How long a ping may go unanswered before the socket counts as dead, in ms. */
  readonly pongTimeoutMs: number;
  /** The socket is open and the hello frame is out: calls may be sent. */
  readonly onOpen: () => void;
  /** The socket is gone (closed, failed, or silent past the pong timeout). Once. */
  readonly onLost: () => void;
  /** Keys this client watched were freed (release or force-release), per the server. */
  readonly onReleased?: (keys: readonly (readonly [string, string])[]) => void;
  /** Someone asks this client to release the grant `request.lockId` (decision 0176). */
  readonly onRevokeRequested?: (request: RevokeRequest) => void;
  /**
   * The server is shutting down (`[0, "draining", null]`, decision 0186): send nothing new
   * on this socket; replies to what was sent still arrive on it.
   */
  readonly onDraining?: () => void;
}

/**
 * A request that this client release one of its grants, as the server pushes it
 * (`[0, "revoke", …]`, docs/decisions/0176-cooperative-revocation.md). Only a request: the
 * lease stays held until the client releases it.
 */
export interface RevokeRequest {
  readonly resource: string;
  readonly businessKey: string;
  /** The grant asked to let go. */
  readonly lockId: string;
  /** Why, as the requester said it; null when it gave none. */
  readonly reason: string | null;
  /** Who asked: `operator:<name>` or `tenant:<id>/key:<keyId>`. */
  readonly requestedBy: string;
  /** When it was asked, ms since the Unix epoch (the server's clock). */
  readonly at: number;
}

function revokeRequestOf(body: unknown): RevokeRequest | null {
  if (typeof body !== "object" || body === null) return null;
  const { resource, businessKey, lockId, reason, requestedBy, at } = body as Record<
    string,
    unknown
  >;
  if (
    typeof resource !== "string" ||
    typeof businessKey !== "string" ||
    typeof lockId !== "string" ||
    (reason !== null && typeof reason !== "string") ||
    typeof requestedBy !== "string" ||
    typeof at !== "number"
  ) {
    return null;
  }
  return { resource, businessKey, lockId, reason, requestedBy, at };
}

/** One lease as a bulk renewal sends it. */
export interface RenewItem {
  readonly resource: string;
  readonly businessKey: string;
  readonly lockId: string;
  readonly tier: string;
  readonly leaseMs?: number;
  /**
   * `permit`: a semaphore permit grant (docs/decisions/0162); `rwlock`: a read-write lock
   * grant (docs/decisions/0211); absent: a lock.
   */
  readonly kind?: RenewKind;
}

/** Grant kinds a `renew` item may name besides a lock. */
export type RenewKind = "permit" | "rwlock";

/**
 * Kinds sent in a `renew` only to a server whose `limits` push names them: a server that
 * does not know an item's kind refuses the whole command, the leases beside it included.
 * (`permit` items predate the list; a server without them refuses each one alone.)
 */
const ANNOUNCED_KINDS: ReadonlySet<RenewKind> = new Set(["rwlock"]);

/** What the server answered for one lease of a bulk renewal. */
export type RenewResult =
  | {
      readonly ttlMs: number;
      readonly expiresAt: number;
      readonly error?: undefined;
      readonly unsent?: undefined;
    }
  | {
      readonly error: { readonly message: string; readonly code: number; readonly data?: unknown };
      readonly unsent?: undefined;
    }
  /** Not sent: this socket's server did not name the item's kind (renew it by call). */
  | { readonly unsent: true; readonly error?: undefined };

/** The typed answer of a bulk renewal. */
export interface RenewReply {
  readonly results: readonly RenewResult[];
  /** Null when no item of the command was sent. */
  readonly currentTier: "redis" | "mysql" | "local" | null;
}

interface Pending {
  readonly resolve: (data: unknown) => void;
  readonly reject: (error: Error) => void;
  /** When the call counts as lost if no reply came, on `performance.now()`'s clock. */
  readonly deadline: number;
  readonly timeoutMs: number;
  sent: boolean;
}

/** `[id, op, input]`, or with the caller's W3C trace context as a fourth element. */
type Command =
  | readonly [number, string, unknown]
  | readonly [number, string, unknown, Readonly<Record<string, string>>];

// The lock procedures the protocol runs natively; every other path goes as `call`.
const NATIVE: Readonly<Record<string, string>> = {
  "lock.acquire": "acquire",
  "lock.release": "release",
  "lock.extend": "extend",
  "lock.inspect": "inspect",
  "lock.cancelWait": "cancelWait",
};

/**
 * Longest outgoing frame, in UTF-8 bytes, until the server says its limit (the `limits`
 * push right after the hello): under the smallest message limit a server is likely to
 * run with. A server closes a socket whose message exceeds its limit, which would lose
 * every call in flight.
 */
const DEFAULT_FRAME_BYTES = 15 * 1024;

/**
 * Most commands one frame may carry: the server refuses the commands of a frame past this
 * (apps/server/src/protocol/wire.ts, `MAX_COMMANDS_PER_FRAME`), so a turn with more leaves
 * in several frames.
 */
export const MAX_COMMANDS_PER_FRAME = 512;

/** Room left under the server's limit for the frame's brackets and separators, in bytes. */
const FRAME_SLACK_BYTES = 512;

// A graceful close waits for the server's close frame; a frozen server never sends it.
const CLOSE_GRACE_MS = 250;

/**
 * One WebSocket speaking the server's batched lock protocol. Every command issued in one
 * turn of the event loop leaves in one frame (`[[id, op, input], …]`, split only past the
 * server's message limit, which it sends after the hello); the server answers a frame's
 * commands in one frame (a waiting acquire answers on its own). Lock calls (`lock.acquire`,
 * `release`, `extend`, `inspect`, `cancelWait`) are native commands, bulk renewals are
 * `renew`, and any other procedure of the API rides the same socket as `call` (tRPC's
 * own WebSocket protocol on the same path stays for other clients). A command is written
 * at most once, on this socket only; when the socket goes, every command still waiting
 * fails with an unknown outcome (or as not sent, if it had not left) and is never re-sent
 * (docs/design.md#no-replay-no-guess). It replaces the SDK's earlier tRPC client
 * (`RpcSocket`, docs/decisions/0041-hot-path-costs.md): see
 * docs/decisions/0065-batched-lock-protocol.md.
 */
export class LockSocket {
  private readonly ws: WebSocket;
  private readonly pending = new Map<number, Pending>();
  /**
   * One timer for every call's reply deadline, armed at the earliest one (a timer per call
   * cost an allocation and two timer-list operations on every lock call).
   */
  private deadlineTimer: NodeJS.Timeout | undefined;
  private deadlineAt = Number.POSITIVE_INFINITY;
  private outgoing: Command[] = [];
  private flushScheduled = false;
  private nextId = 1;
  /** Largest frame to send, in UTF-8 bytes (a turn's commands leave in one frame up to it). */
  private frameBytes = DEFAULT_FRAME_BYTES;
  /** Item kinds this socket's server named in its `limits` push (none until it arrives). */
  private renewKinds: ReadonlySet<unknown> = new Set();
  private state: "opening" | "open" | "gone" = "opening";
  private pingTimer: NodeJS.Timeout | undefined;
  private pongTimer: NodeJS.Timeout | undefined;

  constructor(
    url: string,
    private readonly options: LockSocketOptions,
  ) {
    this.ws = new WebSocket(url, LOCK_SUBPROTOCOL);
    this.ws.on("open", () => this.opened());
    this.ws.on("message", (data, isBinary) => this.received(data, isBinary));
    this.ws.on("pong", () => this.heard());
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
   * Sends one call of the API and resolves with its result. Fails with
   * `ServerUnreachableError` when the socket was not open to take it (nothing sent), with
   * `ReplyLostError` when no reply came within `timeoutMs` or the socket went (outcome
   * unknown), and with the server's answer as a `TRPCClientError` otherwise.
   */
  request(
    method: "query" | "mutation",
    path: string,
    input: unknown,
    timeoutMs: number,
  ): Promise<unknown> {
    const op = NATIVE[path];
    return op === undefined
      ? this.command("call", [method, path, input], timeoutMs)
      : this.command(op, input, timeoutMs);
  }

  /**
   * Renews many leases in one command; the reply answers each lease on its own. An item
   * whose kind this socket's server has not named is not sent: its result is `unsent`.
   */
  async renew(items: readonly RenewItem[], timeoutMs: number): Promise<RenewReply> {
    const taken = (item: RenewItem) =>
      item.kind === undefined || !ANNOUNCED_KINDS.has(item.kind) || this.renewKinds.has(item.kind);
    if (items.every(taken)) return this.renewAll(items, timeoutMs);
    const sent = items.filter(taken);
    const reply =
      sent.length > 0 ? await this.renewAll(sent, timeoutMs) : { results: [], currentTier: null };
    let next = 0;
    const results = items.map(
      (item): RenewResult => (taken(item) ? reply.results[next++]! : { unsent: true }),
    );
    return { results, currentTier: reply.currentTier };
  }

  private renewAll(items: readonly RenewItem[], timeoutMs: number): Promise<RenewReply> {
    // One span per command, not per lease: renewals are the steady background load. A
    // watchdog's renewals start a trace of their own (never the ended acquire's whose
    // context their timer kept); an explicit `lock.extend()` stays in its caller's trace.
    return traced(
      "warden.renew",
      () => ({ "warden.lease_count": items.length }),
      () => this.command("renew", { items }, timeoutMs) as Promise<RenewReply>,
      (reply, span) => {
        const refused = reply.results.filter((result) => result.error !== undefined).length;
        span.setAttributes({
          "warden.outcome": "renewed",
          "warden.refused_count": refused,
          "warden.tier": reply.currentTier ?? undefined,
        });
      },
      undefined,
      !liveSpanActive(),
    );
  }

  private command(op: string, input: unknown, timeoutMs: number): Promise<unknown> {
    if (this.state !== "open") {
      return Promise.reject(new ServerUnreachableError("the connection is not open"));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const deadline = performance.now() + timeoutMs;
      this.pending.set(id, { resolve, reject, deadline, timeoutMs, sent: false });
      if (deadline < this.deadlineAt) this.armDeadline(deadline);
      // The caller's trace context rides along (W3C trace context) so the server's span of
      // this command joins its trace; nothing is added when there is none.
      const carrier = traceCarrier();
      this.outgoing.push(carrier ? [id, op, input, carrier] : [id, op, input]);
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
    this.ws.send(JSON.stringify({ hello: this.options.connectionParams }));
    this.state = "open";
    this.heard();
    this.options.onOpen();
  }

  /** (Re)arms the one deadline timer for `at`; it keeps the process alive like a pending call. */
  private armDeadline(at: number): void {
    clearTimeout(this.deadlineTimer);
    this.deadlineAt = at;
    this.deadlineTimer = setTimeout(
      () => this.expire(),
      Math.max(1, Math.ceil(at - performance.now())),
    );
  }

  /** Fails every call past its deadline as lost; re-arms for the next deadline, if any. */
  private expire(): void {
    this.deadlineTimer = undefined;
    this.deadlineAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (const [id, call] of this.pending) {
      if (call.deadline <= now) {
        this.pending.delete(id);
        call.reject(new ReplyLostError(`no reply within ${call.timeoutMs} ms`));
      } else if (call.deadline < next) {
        next = call.deadline;
      }
    }
    if (next !== Number.POSITIVE_INFINITY) this.armDeadline(next);
  }

  /** A call is settled: with none left, no timer keeps the process alive. */
  private forget(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0 && this.deadlineTimer !== undefined) {
      clearTimeout(this.deadlineTimer);
      this.deadlineTimer = undefined;
      this.deadlineAt = Number.POSITIVE_INFINITY;
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.outgoing;
    this.outgoing = [];
    if (batch.length === 0) return;
    // The server's close frame may have arrived (CLOSING) before the socket's close event:
    // a frame sent now never reaches it, and the server has said it will answer nothing
    // more, so these calls were definitely not sent (not an unknown outcome).
    if (this.state !== "open" || this.ws.readyState !== WebSocket.OPEN) {
      for (const [id] of batch) {
        this.fail(id, new ServerUnreachableError("the connection closed before sending"));
      }
      return;
    }
    const live: Command[] = [];
    for (const command of batch) {
      const call = this.pending.get(command[0]);
      // Its caller already gave up on it (timed out): it is not sent at all.
      if (!call) continue;
      call.sent = true;
      live.push(command);
    }
    if (live.length === 0) return;
    // The common turn fits one frame: one stringify, and no byte count when even three
    // UTF-8 bytes per UTF-16 unit (the most there can be) stay under the limit.
    if (live.length <= MAX_COMMANDS_PER_FRAME) {
      const whole = JSON.stringify(live);
      if (
        whole.length * 3 <= this.frameBytes ||
        Buffer.byteLength(whole, "utf8") <= this.frameBytes
      ) {
        this.ws.send(whole);
        return;
      }
    }
    let frame: string[] = [];
    let frameBytes = 2;
    for (const command of live) {
      const json = JSON.stringify(command);
      const bytes = Buffer.byteLength(json, "utf8") + 1;
      if (
        frame.length > 0 &&
        (frameBytes + bytes > this.frameBytes || frame.length >= MAX_COMMANDS_PER_FRAME)
      ) {
        this.ws.send(`[${frame.join(",")}]`);
        frame = [];
        frameBytes = 2;
      }
      frame.push(json);
      frameBytes += bytes;
    }
    if (frame.length > 0) this.ws.send(`[${frame.join(",")}]`);
  }

  private received(data: WebSocket.RawData, isBinary: boolean): void {
    this.heard();
    if (isBinary) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(textOf(data));
    } catch {
      return;
    }
    if (!Array.isArray(parsed)) return;
    for (const entry of parsed as unknown[][]) {
      if (!Array.isArray(entry)) continue;
      const [id, kind, body] = entry;
      if (id === 0) {
        if (kind === "released" && Array.isArray(body)) {
          this.options.onReleased?.(body as [string, string][]);
        } else if (kind === "revoke") {
          const request = revokeRequestOf(body);
          if (request) this.options.onRevokeRequested?.(request);
        } else if (kind === "draining") {
          this.options.onDraining?.();
        } else if (kind === "limits") {
          const limits = body as { maxFrameBytes?: unknown; renewKinds?: unknown } | null;
          const max = limits?.maxFrameBytes;
          if (typeof max === "number" && max > 2 * FRAME_SLACK_BYTES) {
            this.frameBytes = max - FRAME_SLACK_BYTES;
          }
          if (Array.isArray(limits?.renewKinds)) this.renewKinds = new Set(limits.renewKinds);
        }
        continue;
      }
      if (typeof id !== "number") continue;
      const call = this.pending.get(id);
      if (!call) continue;
      this.forget(id);
      if (kind === 0) call.resolve(body);
      else call.reject(TRPCClientError.from({ error: body as ErrorShape }));
    }
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
    this.ws.ping();
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
    this.forget(id);
    // A call that never left has a known outcome: nothing happened.
    call.reject(call.sent ? error : new ServerUnreachableError(error.message, { cause: error }));
  }
}

interface ErrorShape {
  readonly message: string;
  readonly code: number;
  readonly data?: unknown;
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
