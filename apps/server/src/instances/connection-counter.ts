import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { wantsLockProtocol } from "../protocol/lock-protocol.js";
import type { ConnectionCounts } from "./instance-entry.js";

/**
 * Counts the connections open on one HTTP server, by kind, watching it from outside (its
 * `upgrade` and `request` events, each connection until it closes): WebSockets by their
 * subprotocol (the SDK's lock protocol or tRPC), and requests to a subscription procedure
 * (tRPC serves those as Server-Sent Events). An upgrade the server refuses closes at once
 * and is counted only while it is open.
 */
export class ConnectionCounter {
  private lockSockets = 0;
  private trpcSockets = 0;
  private sseStreams = 0;

  /** What is open now. */
  counts(): ConnectionCounts {
    return {
      lockSockets: this.lockSockets,
      trpcSockets: this.trpcSockets,
      sseStreams: this.sseStreams,
    };
  }

  /**
   * Starts counting `server`'s connections; returns the function that stops it.
   * `subscriptionPaths` are the procedures served as streams (e.g. `live.events`, see
   * {@link subscriptionPathsOf}), under `trpcPath`.
   */
  watch(server: Server, subscriptionPaths: ReadonlySet<string>, trpcPath = "/trpc"): () => void {
    const prefix = `${trpcPath}/`;
    const isSubscription = (url: string) => {
      const path = url.split("?")[0] ?? "";
      return path.startsWith(prefix) && subscriptionPaths.has(path.slice(prefix.length));
    };
    const onUpgrade = (req: IncomingMessage, socket: Duplex) => {
      const lock = wantsLockProtocol(req);
      if (lock) this.lockSockets += 1;
      else this.trpcSockets += 1;
      socket.once("close", () => {
        if (lock) this.lockSockets -= 1;
        else this.trpcSockets -= 1;
      });
    };
    const onRequest = (req: IncomingMessage, res: ServerResponse) => {
      if (req.method !== "GET" || !isSubscription(req.url ?? "/")) return;
      this.sseStreams += 1;
      res.once("close", () => {
        this.sseStreams -= 1;
      });
    };
    server.on("upgrade", onUpgrade);
    server.on("request", onRequest);
    return () => {
      server.off("upgrade", onUpgrade);
      server.off("request", onRequest);
    };
  }
}

/** The paths of a tRPC router's subscription procedures (`router._def.procedures`). */
export function subscriptionPathsOf(procedures: Readonly<Record<string, unknown>>): Set<string> {
  const paths = new Set<string>();
  for (const [path, procedure] of Object.entries(procedures)) {
    const def = (procedure as { _def?: { type?: unknown } } | null)?._def;
    if (def?.type === "subscription") paths.add(path);
  }
  return paths;
}
