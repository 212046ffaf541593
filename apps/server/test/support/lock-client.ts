import WebSocket from "ws";
import {
  startHttpServer,
  type HttpServerHandle,
  type HttpServerOptions,
} from "../../src/http/server.js";
import { LOCK_SUBPROTOCOL } from "../../src/protocol/wire.js";
import type { Harness } from "./harness.js";

/**
 * The harness's services behind an HTTP and WebSocket server on a free loopback port;
 * `options` overrides the body limit (64 KiB) or the shutdown grace (2 s).
 */
export function serveHarness(
  h: Harness,
  options: Partial<Pick<HttpServerOptions, "maxBodyBytes" | "shutdownGraceMs">> = {},
): Promise<HttpServerHandle> {
  return startHttpServer(h.services, {
    host: "127.0.0.1",
    port: 0,
    maxBodyBytes: 64 * 1024,
    shutdownGraceMs: 2_000,
    ...options,
  });
}

/** One entry of a server frame: `[id, 0 | 1, body]` or `[0, kind, body]`. */
export type LockEntry = [number, 0 | 1 | string, unknown];

/** What one item of a `renew` command answered. */
export interface RenewResult {
  ttlMs?: number;
  expiresAt?: number;
  error?: { data: { wardenCode: string; path?: string; details?: Record<string, unknown> } };
}

/** A bare client of the batched lock protocol, for tests that send commands by hand. */
export interface LockClient {
  readonly ws: WebSocket;
  /** Every entry the server sent, pushes included, in order. */
  readonly entries: LockEntry[];
  /** Sends commands in one frame and resolves with their answers, by position. */
  send(...commands: [string, unknown][]): Promise<LockEntry[]>;
}

/** Opens a lock socket to `httpUrl`'s server and says hello with `apiKey` and `clientId`. */
export async function connectLockClient(
  httpUrl: string,
  apiKey: string,
  clientId: string,
): Promise<LockClient> {
  const ws = new WebSocket(`${httpUrl.replace("http", "ws")}/trpc`, LOCK_SUBPROTOCOL);
  const entries: LockEntry[] = [];
  ws.on("message", (data: Buffer) => {
    for (const entry of JSON.parse(data.toString("utf8")) as LockEntry[]) entries.push(entry);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  ws.send(JSON.stringify({ hello: { apiKey, clientId } }));
  let nextId = 1;
  return {
    ws,
    entries,
    async send(...commands) {
      const ids = commands.map(() => nextId++);
      ws.send(JSON.stringify(commands.map(([op, input], i) => [ids[i], op, input])));
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = ids.map((id) => entries.find((entry) => entry[0] === id));
        if (found.every((entry) => entry !== undefined)) return found;
        if (Date.now() > deadline) throw new Error("no answer within 10 s");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
}
