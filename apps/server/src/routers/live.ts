import { on } from "node:events";
import { EventEmitter } from "node:events";
import { tracked } from "@trpc/server";
import { QuotaExceededError } from "@warden/contract";
import { resourcePrefixOf } from "../auth/resource-prefix.js";
import { watchCaller } from "../auth/watch-caller.js";
import { limitsOf } from "../config.js";
import type { RequestMeta } from "../context.js";
import { toTRPCError } from "../errors/to-trpc-error.js";
import type { LiveMessage } from "../live/live-bus.js";
import { liveInputSchema } from "../schemas/admin.js";
import { authedProcedure, router } from "../trpc.js";

// Subscriptions open per connection. A WebSocket's calls share one request object (its
// context is made once per connection); an SSE stream is a request of its own.
const openOnConnection = new WeakMap<RequestMeta, number>();

/** Live updates for the console (SSE or WebSocket). */
export const liveRouter = router({
  /**
   * Audit events of the whole fleet (docs/decisions/0071) and tier changes as they
   * happen, each tracked by its id. Starts with the current tier. A tenant key receives its own tenant's events only.
   * The stream ends when its API key is revoked or its session logged out (within a
   * second, on every instance); streams per credential and subscriptions per WebSocket
   * are capped (QUOTA_EXCEEDED past the cap).
   */
  events: authedProcedure.input(liveInputSchema).subscription(async function* ({
    ctx,
    input,
    signal,
  }) {
    const principal = ctx.principal;
    const limits = limitsOf(ctx.services.config);
    const open = openOnConnection.get(ctx.request) ?? 0;
    // Thrown from inside the stream, so mapped here (the gate maps a procedure's result).
    if (open >= limits.maxSubscriptionsPerSocket) {
      throw toTRPCError(
        new QuotaExceededError(
          1_000,
          `at most ${limits.maxSubscriptionsPerSocket} subscriptions per connection`,
        ),
      );
    }
    const revoked = new AbortController();
    let unwatch: () => void;
    try {
      unwatch = watchCaller(
        ctx.services,
        ctx.request,
        "stream",
        limits.maxStreamsPerCredential,
        () => revoked.abort(),
      );
    } catch (error) {
      throw toTRPCError(error);
    }
    openOnConnection.set(ctx.request, open + 1);
    const prefix = resourcePrefixOf(principal);
    const visible = (message: LiveMessage): boolean => {
      if (message.kind === "tier") return true;
      if (principal.kind === "tenant") {
        if (message.event.tenantId !== principal.tenantId) return false;
        // A prefix-limited key sees its resources only, not tenant-wide (`*`) events.
        if (prefix !== null && !message.event.resource.startsWith(prefix)) return false;
      }
      return input.resource === undefined || message.event.resource === input.resource;
    };
    // Buffer between the bus and this consumer; `on` queues while we are yielding.
    const relay = new EventEmitter();
    const unsubscribe = ctx.services.live.subscribe((message) => {
      if (visible(message)) relay.emit("message", message);
    });
    const ended = signal ? AbortSignal.any([signal, revoked.signal]) : revoked.signal;
    try {
      const snapshot = ctx.services.locks.snapshot();
      yield tracked(`tier-${snapshot.version}`, { kind: "tier", snapshot } satisfies LiveMessage);
      for await (const [message] of on(relay, "message", { signal: ended })) {
        const live = message as LiveMessage;
        const id = live.kind === "event" ? live.event.id : `tier-${live.snapshot.version}`;
        yield tracked(id, live);
      }
    } catch (error) {
      // The client went away or the credential was revoked: the stream just ends.
      if (!ended.aborted) throw error;
    } finally {
      unsubscribe();
      unwatch();
      openOnConnection.set(ctx.request, (openOnConnection.get(ctx.request) ?? 1) - 1);
    }
  }),
});
