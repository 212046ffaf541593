import { on } from "node:events";
import { EventEmitter } from "node:events";
import { tracked } from "@trpc/server";
import type { LiveMessage } from "../live/live-bus.js";
import { liveInputSchema } from "../schemas/admin.js";
import { authedProcedure, router } from "../trpc.js";

/** Live updates for the console (SSE or WebSocket). */
export const liveRouter = router({
  /**
   * This instance's audit events and tier changes as they happen, each tracked by its
   * id. Starts with the current tier. A tenant key receives its own tenant's events only.
   */
  events: authedProcedure.input(liveInputSchema).subscription(async function* ({
    ctx,
    input,
    signal,
  }) {
    const principal = ctx.principal;
    const visible = (message: LiveMessage): boolean => {
      if (message.kind === "tier") return true;
      if (principal.kind === "tenant" && message.event.tenantId !== principal.tenantId)
        return false;
      return input.resource === undefined || message.event.resource === input.resource;
    };
    // Buffer between the bus and this consumer; `on` queues while we are yielding.
    const relay = new EventEmitter();
    const unsubscribe = ctx.services.live.subscribe((message) => {
      if (visible(message)) relay.emit("message", message);
    });
    try {
      const snapshot = ctx.services.locks.snapshot();
      yield tracked(`tier-${snapshot.version}`, { kind: "tier", snapshot } satisfies LiveMessage);
      for await (const [message] of on(relay, "message", { signal })) {
        const live = message as LiveMessage;
        const id = live.kind === "event" ? live.event.id : `tier-${live.snapshot.version}`;
        yield tracked(id, live);
      }
    } finally {
      unsubscribe();
    }
  }),
});
