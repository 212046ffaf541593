import type { Duplex } from "node:stream";
import { context } from "@opentelemetry/api";
import {
  callTRPCProcedure,
  getTRPCErrorFromUnknown,
  getTRPCErrorShape,
  TRPCError,
} from "@trpc/server";
import { InvalidArgumentError, UnauthorizedError, WaitCancelledError } from "@warden/contract";
import type { WebSocket } from "ws";
import { ZodError, z } from "zod";
import type { TenantPrincipal } from "../auth/principal.js";
import type { Context, Services } from "../context.js";
import { toTRPCError } from "../errors/to-trpc-error.js";
import { QuotaExceededError } from "../errors/quota-exceeded-error.js";
import { commandContext, tracedRenew } from "../telemetry/tracing.js";
import { keyString } from "../locks/lock-key.js";
import type { ReleaseNotifier } from "../locks/release-notifier.js";
import { appRouter } from "../routers/_app.js";
import {
  acquireInputSchema,
  cancelWaitInputSchema,
  extendInputSchema,
  lockKeyInputSchema,
  releaseInputSchema,
  type ExtendInput,
} from "@warden/contract/wire";
import type { LockCaller } from "../usecases/index.js";
import { clientIdOf } from "../usecases/lock-caller.js";
import { directCallOf, quotaMessage, type DirectCall } from "./direct-calls.js";
import { plainAcquire, plainExtend, plainRelease } from "./fast-inputs.js";
import type { RevokePush } from "./revoke-relay.js";
import {
  MAX_COMMANDS_PER_FRAME,
  MAX_INFLIGHT_PER_CONNECTION,
  MAX_RENEW_ITEMS,
  MAX_WATCHES_PER_CONNECTION,
  RENEW_KINDS,
  type RenewKind,
} from "./wire.js";
import { notServed } from "../errors/not-served.js";

// Built once: every command of every frame is checked against the wire contract's schemas.
// An item with `kind: "permit"` renews a semaphore permit grant (docs/decisions/0162), one
// with `kind: "rwlock"` a read-write lock grant (docs/decisions/0211).
const renewInput = z.object({
  items: z
    .array(extendInputSchema.extend({ kind: z.enum(RENEW_KINDS).optional() }))
    .min(1)
    .max(MAX_RENEW_ITEMS),
});
type RenewEntry = ExtendInput & { readonly kind?: RenewKind };
const callInput = z.tuple([z.enum(["query", "mutation"]), z.string().max(100), z.unknown()]);
const helloInput = z.object({
  hello: z.object({
    apiKey: z.string().max(200).optional(),
    clientId: z.string().max(1000).optional(),
  }),
});

// Bytes queued for the client past which the server stops reading its commands.
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
const PING_MS = 10_000;
const PONG_WAIT_MS = 5_000;
const WATCH_SWEEP_MS = 1_000;

type Entry =
  | readonly [number, 0 | 1, unknown]
  | readonly [0, "released", string[][]]
  | readonly [
      0,
      "limits",
      { readonly maxFrameBytes: number; readonly renewKinds: readonly RenewKind[] },
    ]
  | readonly [0, "revoke", RevokePush]
  | readonly [0, "draining", null];

/** What the protocol needs from the process besides the services. */
export interface LockConnectionDeps {
  readonly services: Services;
  /** Largest message this server takes (a larger one closes the socket). */
  readonly maxFrameBytes: number;
  readonly notifier: ReleaseNotifier;
  /** The tRPC context of this connection (for `call` and error shapes), from its hello. */
  readonly contextOf: (params: { apiKey?: string; clientId?: string } | null) => Context;
  /** Aborted when the connection closes: waits end, nothing is left queued. */
  readonly controller: AbortController;
  /**
   * True once the server began shutting down: a new waiting acquire is answered
   * WAIT_CANCELLED at once (definite, nothing granted) so the SDK retries it on another
   * instance, instead of it waiting here until the socket is cut (an unknown outcome).
   */
  readonly stopping: () => boolean;
}

interface Watch {
  readonly until: number;
  readonly unsubscribe: () => void;
}

/**
 * One SDK connection speaking the batched lock protocol (see wire.ts): a frame is decoded
 * once and authenticated once (the API key is resolved per frame through the server's
 * 1 s credential cache, so a revoked key stops within that time and at once on this
 * instance); each command is validated by a schema compiled at start-up, spends one
 * token of the tenant's quota and runs at once, so the store writes of a frame leave
 * together; the replies finished in one turn leave in one frame.
 */
export class LockConnection {
  private apiKey: string | null = null;
  private clientId: string | null = null;
  private helloSeen = false;
  private ctx: Context;
  private inflight = 0;
  private paused = false;
  private out: Entry[] = [];
  private flushScheduled = false;
  private released: string[][] = [];
  private alive = true;
  /** Tenant and canonical clientId this connection counts for in the fleet's liveness. */
  private liveAs: { readonly tenantId: string; readonly clientId: string } | null = null;
  private ended = false;
  /** Leaves the revoke relay (decision 0176); set with the connection's first authenticated frame. */
  private leaveRevokes: (() => void) | null = null;
  private readonly watches = new Map<string, Watch>();
  /** The request-quota key of the tenant this connection last spent for (one string, not one per command). */
  private quotaTenant: string | null = null;
  private quotaKey = "";
  private readonly pingTimer: NodeJS.Timeout;
  private readonly sweepTimer: NodeJS.Timeout;

  constructor(
    private readonly ws: WebSocket,
    private readonly socket: Duplex,
    private readonly deps: LockConnectionDeps,
  ) {
    this.ctx = deps.contextOf(null);
    ws.on("message", (data, isBinary) => {
      if (isBinary) return this.violation("binary frames are not part of the protocol");
      this.received(textOf(data));
    });
    ws.on("pong", () => {
      this.alive = true;
    });
    ws.on("close", () => this.closed());
    ws.on("error", () => ws.terminate());
    this.pingTimer = setInterval(() => this.ping(), PING_MS);
    this.pingTimer.unref();
    this.sweepTimer = setInterval(() => this.sweepWatches(), WATCH_SWEEP_MS);
    this.sweepTimer.unref();
  }

  private get services(): Services {
    return this.deps.services;
  }

  private received(text: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return this.violation("a frame is not JSON");
    }
    if (!this.helloSeen) {
      const hello = helloInput.safeParse(parsed);
      if (!hello.success) return this.violation("the first frame must be the hello");
      this.helloSeen = true;
      this.apiKey = hello.data.hello.apiKey ?? null;
      this.clientId = hello.data.hello.clientId ?? null;
      this.ctx = this.deps.contextOf(hello.data.hello);
      // The client sizes its frames by this server's limit, not by a guess, and sends in
      // `renew` only the item kinds this server names (docs/decisions/0211).
      this.push([0, "limits", { maxFrameBytes: this.deps.maxFrameBytes, renewKinds: RENEW_KINDS }]);
      return;
    }
    if (!Array.isArray(parsed)) return this.violation("a frame must be an array of commands");
    void this.frame(parsed as unknown[]);
  }

  private async frame(commands: unknown[]): Promise<void> {
    const apiKey = this.apiKey;
    let principal: TenantPrincipal | null = null;
    let refusal: Error | null = null;
    try {
      principal =
        apiKey === null ? null : await this.services.apiKeys.resolve(apiKey, this.ctx.request.ip);
    } catch (error) {
      refusal = error instanceof Error ? error : new Error(String(error));
    }
    if (!refusal && !principal) {
      refusal = new UnauthorizedError(
        apiKey === null ? "send an API key in the hello frame" : "unknown or revoked API key",
      );
    }
    const clientId = this.clientId;
    if (this.liveAs === null && principal && clientId !== null) this.countLive(principal, clientId);
    if (this.leaveRevokes === null && principal && clientId !== null)
      this.joinRevokes(principal, clientId);
    const batch = new FrameReplies(this);
    const caller: LockCaller | null = refusal || !principal ? null : { principal, clientId };
    for (let index = 0; index < commands.length; index++) {
      const command = commands[index];
      if (!Array.isArray(command) || !Number.isSafeInteger(command[0]) || command[0] <= 0) {
        return this.violation("a command must be [id, op, input] with a positive integer id");
      }
      const [id, op, input, carrier] = command as [number, unknown, unknown, unknown];
      // The caller's trace context (W3C), when its SDK sent one: this command's spans join it.
      const traced = carrier === undefined ? null : commandContext(carrier);
      if (traced) {
        context.with(traced, () => this.dispatch(batch, id, op, input, caller, refusal, index));
      } else {
        this.dispatch(batch, id, op, input, caller, refusal, index);
      }
    }
    batch.sealed();
  }

  /**
   * The first authenticated frame makes this connection count as its client's, fleet-wide,
   * until it closes (docs/decisions/0150): once per connection, in memory, off the commands.
   * The SDK sends its heartbeat right after every (re)connect, so that is at once.
   */
  private countLive(principal: TenantPrincipal, rawClientId: string): void {
    const liveness = this.services.liveness;
    // Closed while its key was being resolved: nothing to count.
    if (!liveness || this.ended) return;
    let clientId: string;
    try {
      clientId = clientIdOf({ principal, clientId: rawClientId });
    } catch {
      return;
    }
    this.liveAs = { tenantId: principal.tenantId, clientId };
    liveness.connected(this.liveAs.tenantId, clientId);
  }

  /**
   * Revoke requests for the leases of this connection's client reach it as a
   * `[0, "revoke", push]` entry (docs/decisions/0176); an SDK that does not know the entry
   * skips it, as it skips every `[0, kind, …]` entry it does not know.
   */
  private joinRevokes(principal: TenantPrincipal, rawClientId: string): void {
    if (this.ended) return;
    let clientId: string;
    try {
      clientId = clientIdOf({ principal, clientId: rawClientId });
    } catch {
      return;
    }
    this.leaveRevokes = this.services.revokes.join(principal.tenantId, clientId, (push) =>
      this.push([0, "revoke", push]),
    );
  }

  private dispatch(
    batch: FrameReplies,
    id: number,
    op: unknown,
    input: unknown,
    caller: LockCaller | null,
    refusal: Error | null,
    index: number,
  ): void {
    if (index >= MAX_COMMANDS_PER_FRAME) {
      this.fail(
        batch,
        id,
        String(op),
        new InvalidArgumentError("frame", `at most ${MAX_COMMANDS_PER_FRAME} commands a frame`),
      );
    } else if (op === "call") {
      // A waiting semaphore or read-write lock acquire answers on its own, like a waiting
      // lock acquire (docs/decisions/0161, 0166).
      const waits = Array.isArray(input) && WAITING_CALLS.has(input[1]) && waitsOf(input[2]);
      if (waits && this.deps.stopping())
        return this.fail(batch, id, "call", new WaitCancelledError(null));
      // The hot coordination calls of an authenticated frame run on their use cases
      // directly (docs/decisions/0193), counted here as the tRPC gate counts them; the
      // rest go through tRPC, whose procedure authenticates, checks and counts itself.
      const direct = caller ? directCallOf(input) : null;
      if (direct && caller) {
        const callCaller = this.callerOfCalls(caller);
        const raw = (input as unknown[])[2];
        this.start(waits ? null : batch, id, "call", input, () =>
          this.direct(direct, callCaller, raw),
        );
      } else {
        this.start(waits ? null : batch, id, "call", input, () => this.call(input), false);
      }
    } else if (!caller) {
      this.fail(batch, id, String(op), refusal ?? new UnauthorizedError("unknown API key"));
    } else {
      this.command(batch, id, op, input, caller);
    }
  }

  private command(
    batch: FrameReplies,
    id: number,
    op: unknown,
    input: unknown,
    caller: LockCaller,
  ): void {
    const rate = caller.principal.requestsPerSecond;
    const tenant = caller.principal.tenantId;
    if (tenant !== this.quotaTenant) {
      this.quotaTenant = tenant;
      this.quotaKey = `tenant:${tenant}`;
    }
    const waitMs = this.services.limiter.take(this.quotaKey, rate, rate);
    if (waitMs > 0) {
      this.services.metrics.quotaRefusals.inc({ tenant });
      return this.fail(batch, id, String(op), new QuotaExceededError(waitMs));
    }
    const ops = this.services.lockUseCases;
    switch (op) {
      case "acquire": {
        // A wait answers on its own, not holding back the frame's other replies.
        const waits =
          typeof input === "object" && input !== null && (input as { waitMs?: unknown }).waitMs;
        if (typeof waits === "number" && waits > 0 && this.deps.stopping()) {
          return this.fail(batch, id, op, new WaitCancelledError(null));
        }
        return this.start(
          typeof waits === "number" && waits > 0 ? null : batch,
          id,
          op,
          input,
          () => this.acquire(caller, input),
        );
      }
      case "release":
        return this.start(batch, id, op, input, () =>
          ops.release(caller, plainRelease(input) ?? releaseInputSchema.parse(input)),
        );
      case "extend":
        return this.start(batch, id, op, input, () =>
          ops.extend(caller, plainExtend(input) ?? extendInputSchema.parse(input)),
        );
      case "renew":
        return this.start(batch, id, op, input, () => this.renew(caller, input));
      case "inspect":
        return this.start(batch, id, op, input, () =>
          ops.inspect(caller, lockKeyInputSchema.parse(input)),
        );
      case "cancelWait":
        return this.start(batch, id, op, input, () =>
          ops.cancelWait(caller, cancelWaitInputSchema.parse(input)),
        );
      default:
        return this.fail(
          batch,
          id,
          String(op),
          new InvalidArgumentError("op", `unknown op ${String(op)}`),
        );
    }
  }

  /**
   * A try-acquire that asks to `watch` and is refused on a non-fair resource registers
   * the key: the client may refuse it locally until the observed lease ends, and is told
   * when it is freed sooner. The listener is attached before the store is asked, so a
   * release racing the refusal is never missed (then the answer says `watch: false`).
   */
  private async acquire(caller: LockCaller, raw: unknown): Promise<unknown> {
    const input = plainAcquire(raw) ?? acquireInputSchema.parse(raw);
    const wantsWatch =
      (input.waitMs ?? 0) === 0 &&
      typeof raw === "object" &&
      raw !== null &&
      (raw as { watch?: unknown }).watch === true &&
      this.watches.size < MAX_WATCHES_PER_CONNECTION;
    const ops = this.services.lockUseCases;
    const signal = this.deps.controller.signal;
    if (!wantsWatch) return ops.acquire(caller, input, signal);
    const key = { resource: input.resource, businessKey: input.businessKey };
    let freed = false;
    const unsubscribe = this.deps.notifier.onRelease(key, () => {
      freed = true;
    });
    let kept = false;
    try {
      const reply = await ops.acquire(caller, input, signal);
      if (reply.granted) return reply;
      // The policy is cached: a fair resource's key is never refused locally (waiters queue).
      const { registry } = this.services;
      const { fair } =
        registry.resolveCached(input.resource, caller.principal) ??
        (await registry.resolve(input.resource, caller.principal));
      if (fair || reply.ttlMs <= 0 || freed) return { ...reply, watch: false };
      kept = this.watch(key, reply.ttlMs);
      return { ...reply, watch: kept };
    } finally {
      unsubscribe();
    }
  }

  private watch(key: { resource: string; businessKey: string }, ttlMs: number): boolean {
    const name = keyString(key);
    if (this.watches.has(name)) this.unwatch(name);
    if (this.watches.size >= MAX_WATCHES_PER_CONNECTION) return false;
    const unsubscribe = this.deps.notifier.onRelease(key, () => {
      this.unwatch(name);
      this.released.push([key.resource, key.businessKey]);
      this.scheduleFlush();
    });
    this.watches.set(name, { until: performance.now() + ttlMs, unsubscribe });
    return true;
  }

  private unwatch(name: string): void {
    const watch = this.watches.get(name);
    if (!watch) return;
    this.watches.delete(name);
    watch.unsubscribe();
  }

  private sweepWatches(): void {
    if (this.watches.size === 0) return;
    const now = performance.now();
    for (const [name, watch] of this.watches) if (watch.until <= now) this.unwatch(name);
  }

  /** Renews many leases in one command; each answers on its own (a lost one fails alone). */
  private async renew(caller: LockCaller, raw: unknown): Promise<unknown> {
    const { items } = plainRenew(raw) ?? renewInput.parse(raw);
    return tracedRenew(items.length, () => this.renewItems(caller, items));
  }

  private async renewItems(caller: LockCaller, items: RenewEntry[]) {
    const results = await Promise.all(
      items.map((item) => {
        switch (item.kind) {
          case "permit":
            return this.renewPermit(caller, item).then(
              ({ permit }) => ({ ttlMs: permit.ttlMs, expiresAt: permit.expiresAt }),
              (error: unknown) => ({ error: this.shapeOf(error, "semaphore.extend", item) }),
            );
          case "rwlock":
            return this.renewRwGrant(caller, item).then(
              ({ grant }) => ({ ttlMs: grant.ttlMs, expiresAt: grant.expiresAt }),
              (error: unknown) => ({ error: this.shapeOf(error, "rwlock.extend", item) }),
            );
          case undefined:
            return this.services.lockUseCases.extend(caller, item).then(
              (lease) => ({ ttlMs: lease.ttlMs, expiresAt: lease.expiresAt }),
              (error: unknown) => ({ error: this.shapeOf(error, "lock.extend", item) }),
            );
        }
      }),
    );
    return { results, currentTier: this.services.locks.tier };
  }

  /** One permit of a `renew` command, through the semaphore use case (decision 0162). */
  private async renewPermit(caller: LockCaller, item: RenewEntry) {
    const semaphores = this.services.semaphoreUseCases;
    if (!semaphores) throw notServed("semaphores");
    const { kind: _kind, ...input } = item;
    return semaphores.extend(caller, input);
  }

  /** One read-write grant of a `renew` command, through the rwlock use case (decision 0211). */
  private async renewRwGrant(caller: LockCaller, item: RenewEntry) {
    const rwLocks = this.services.rwUseCases;
    if (!rwLocks) {
      throw notServed("read-write locks");
    }
    const { kind: _kind, ...input } = item;
    return rwLocks.extend(caller, input);
  }

  /**
   * The caller a procedure would see: the frame's principal (resolved from the hello's API
   * key, which is also the connection context's key) and the context's clientId (the
   * hello's, else the upgrade's `x-warden-client-id` header).
   */
  private callerOfCalls(caller: LockCaller): LockCaller {
    const clientId = this.ctx.request.clientId;
    return clientId === caller.clientId ? caller : { principal: caller.principal, clientId };
  }

  /**
   * A coordination call without tRPC, doing what its `tenantProcedure` does in the same
   * order: one token of the tenant's request quota (refused: nothing else happens), the
   * router's schema, then the router's use case with the connection's abort signal. An
   * API key's principal is always a tenant's, which is all the procedure's gate asks.
   */
  private async direct(call: DirectCall, caller: LockCaller, raw: unknown): Promise<unknown> {
    const tenant = caller.principal.tenantId;
    if (tenant !== this.quotaTenant) {
      this.quotaTenant = tenant;
      this.quotaKey = `tenant:${tenant}`;
    }
    const rate = caller.principal.requestsPerSecond;
    const waitMs = this.services.limiter.take(this.quotaKey, rate, rate);
    if (waitMs > 0) {
      this.services.metrics.quotaRefusals.inc({ tenant });
      throw new QuotaExceededError(waitMs, quotaMessage(tenant, waitMs));
    }
    return call.run(this.services, caller, call.parse(raw), this.ctx.request.signal);
  }

  private call(raw: unknown): Promise<unknown> {
    const [type, path, input] = callInput.parse(raw);
    return callTRPCProcedure({
      router: appRouter,
      path,
      getRawInput: () => Promise.resolve(input),
      ctx: this.ctx,
      type,
      signal: undefined,
      batchIndex: 0,
    });
  }

  private start(
    batch: FrameReplies | null,
    id: number,
    op: string,
    input: unknown,
    run: () => Promise<unknown>,
    counted = true,
  ): void {
    const end = counted ? this.services.inflight.begin() : null;
    batch?.begin();
    this.inflight += 1;
    if (this.inflight >= MAX_INFLIGHT_PER_CONNECTION) this.pause();
    let promise: Promise<unknown>;
    try {
      promise = run();
    } catch (error) {
      promise = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    promise.then(
      (result) => {
        end?.();
        this.settled();
        if (batch) batch.settle([id, 0, result]);
        else this.push([id, 0, result]);
      },
      (error: unknown) => {
        end?.();
        this.settled();
        const entry: Entry = [id, 1, this.shapeOf(error, pathOf(op, input), input)];
        if (batch) batch.settle(entry);
        else this.push(entry);
      },
    );
  }

  private fail(batch: FrameReplies, id: number, op: string, error: unknown): void {
    batch.add([id, 1, this.shapeOf(error, `lock.${op}`, undefined)]);
  }

  /** The error as the tRPC API would answer it (its formatter adds Warden's code). */
  private shapeOf(cause: unknown, path: string, input: unknown): unknown {
    const error =
      cause instanceof ZodError
        ? new TRPCError({ code: "BAD_REQUEST", message: cause.message, cause })
        : cause instanceof TRPCError
          ? cause
          : toTRPCError(cause);
    if (error.code === "INTERNAL_SERVER_ERROR") {
      this.services.logger.error({ err: error.cause ?? error, path }, "procedure failed");
    }
    return getTRPCErrorShape({
      config: appRouter._def._config,
      error: getTRPCErrorFromUnknown(error),
      type: "mutation",
      path,
      input,
      ctx: this.ctx,
    });
  }

  private settled(): void {
    this.inflight -= 1;
    if (this.paused && this.inflight < MAX_INFLIGHT_PER_CONNECTION / 2) this.resume();
  }

  /** Queues a reply for this turn's frame. */
  push(entry: Entry): void {
    this.out.push(entry);
    this.scheduleFlush();
  }

  /** Queues a frame's replies for this turn's frame; takes `entries` over. */
  pushAll(entries: Entry[]): void {
    if (this.out.length === 0) this.out = entries;
    else for (const entry of entries) this.out.push(entry);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.released.length > 0) {
      this.out.push([0, "released", this.released]);
      this.released = [];
    }
    const out = this.out;
    this.out = [];
    if (out.length === 0 || this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(JSON.stringify(out));
    if (this.ws.bufferedAmount > MAX_BUFFERED_BYTES && !this.paused) {
      this.pause();
      this.socket.once("drain", () => {
        if (this.inflight < MAX_INFLIGHT_PER_CONNECTION / 2) this.resume();
      });
    }
  }

  private pause(): void {
    if (this.paused) return;
    this.paused = true;
    this.ws.pause();
  }

  private resume(): void {
    if (!this.paused || this.ws.bufferedAmount > MAX_BUFFERED_BYTES) return;
    this.paused = false;
    this.ws.resume();
  }

  private ping(): void {
    if (!this.alive) {
      this.ws.terminate();
      return;
    }
    this.alive = false;
    this.ws.ping();
    // A client that misses the pong for PONG_WAIT_MS is gone; its waits leave the queues.
    const timer = setTimeout(() => {
      if (!this.alive) this.ws.terminate();
    }, PONG_WAIT_MS);
    timer.unref();
  }

  /**
   * Tells the client this instance is shutting down (`[0, "draining", null]`, decision
   * 0186): it sends nothing new here and opens a socket to another instance, so no command
   * of it can arrive while this socket closes (which would be an unknown outcome). What it
   * already sent is answered here: a withdrawn wait as WAIT_CANCELLED, which it retries on
   * the new socket.
   */
  drain(): void {
    if (this.ended || this.ws.readyState !== this.ws.OPEN) return;
    this.push([0, "draining", null]);
  }

  /**
   * Closes the socket for a server shutdown, once every command in progress on it has
   * settled and its reply has left (at most `withinMs`): a wait the shutdown withdrew
   * reaches the SDK as a definite answer, which it retries on another instance, instead
   * of as a dropped connection (an unknown outcome).
   */
  async shutdown(code: number, reason: string, withinMs: number): Promise<void> {
    const deadline = Date.now() + withinMs;
    while (
      this.ws.readyState === this.ws.OPEN &&
      (this.inflight > 0 || this.flushScheduled || this.out.length > 0) &&
      Date.now() < deadline
    ) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    if (this.ws.readyState === this.ws.OPEN) this.ws.close(code, reason);
  }

  /** The peer broke the protocol: nothing can be answered reliably, the socket closes. */
  private violation(reason: string): void {
    this.ws.close(1008, reason.slice(0, 120));
  }

  private closed(): void {
    this.ended = true;
    clearInterval(this.pingTimer);
    clearInterval(this.sweepTimer);
    this.deps.controller.abort();
    if (this.liveAs)
      this.services.liveness?.disconnected(this.liveAs.tenantId, this.liveAs.clientId);
    this.liveAs = null;
    this.leaveRevokes?.();
    this.leaveRevokes = null;
    for (const name of [...this.watches.keys()]) this.unwatch(name);
    this.out = [];
  }
}

/**
 * The replies of one frame's commands, held until the last of them settled so the frame
 * is answered in one frame (a waiting acquire answers on its own).
 */
class FrameReplies {
  private entries: Entry[] = [];
  private open = 0;
  private complete = false;

  constructor(private readonly connection: LockConnection) {}

  /** A command of the frame started. */
  begin(): void {
    this.open += 1;
  }

  /** The answer of a started command. */
  settle(entry: Entry): void {
    this.open -= 1;
    this.add(entry);
  }

  /** An answer given without any work (a refusal). */
  add(entry: Entry): void {
    this.entries.push(entry);
    this.done();
  }

  /** Every command of the frame has been started. */
  sealed(): void {
    this.complete = true;
    this.done();
  }

  private done(): void {
    if (this.complete && this.open === 0 && this.entries.length > 0) {
      const entries = this.entries;
      this.entries = [];
      this.connection.pushAll(entries);
    }
  }
}

function plainRenew(raw: unknown): { items: RenewEntry[] } | null {
  const items = typeof raw === "object" && raw !== null ? (raw as { items?: unknown }).items : null;
  if (!Array.isArray(items) || items.length === 0 || items.length > MAX_RENEW_ITEMS) return null;
  const plain: RenewEntry[] = [];
  for (const item of items) {
    const input = plainExtend(item);
    if (!input) return null;
    const kind = (item as { kind?: unknown }).kind;
    if (kind === "permit" || kind === "rwlock") plain.push({ ...input, kind });
    else if (kind === undefined) plain.push(input);
    else return null;
  }
  return { items: plain };
}

// Calls whose wait (waitMs > 0) answers on its own (docs/decisions/0161, 0166).
const WAITING_CALLS = new Set<unknown>([
  "semaphore.acquire",
  "rwlock.acquireRead",
  "rwlock.acquireWrite",
]);

/** True when a command's input asks to wait (`waitMs` > 0). */
function waitsOf(input: unknown): boolean {
  const waitMs =
    typeof input === "object" && input !== null && (input as { waitMs?: unknown }).waitMs;
  return typeof waitMs === "number" && waitMs > 0;
}

function pathOf(op: string, input: unknown): string {
  if (op === "call" && Array.isArray(input) && typeof input[1] === "string") return input[1];
  return `lock.${op}`;
}

function textOf(data: Buffer | ArrayBuffer | Buffer[]): string {
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  return (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)).toString("utf8");
}
