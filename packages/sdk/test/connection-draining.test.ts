import type { AddressInfo } from "node:net";
import { afterEach, expect, test } from "vitest";
import { WebSocketServer, type WebSocket as ServerSocket } from "ws";
import { resolveWardenOptions } from "../src/options/resolve-warden-options.js";
import { Connection } from "../src/transport/connection.js";
import { ReplyLostError } from "../src/transport/transport-errors.js";
import { until } from "./support/until.js";

type Command = [number, string, unknown];

/**
 * A WebSocket peer speaking the lock subprotocol (decision 0065) that records every command
 * and answers at once, except `inspect` commands with `{ hold: true }`, which it keeps until
 * the test answers them.
 */
async function peer(name: string) {
  const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const commands: Command[] = [];
  const held: { ws: ServerSocket; id: number }[] = [];
  const sockets: ServerSocket[] = [];
  server.on("connection", (ws: ServerSocket) => {
    sockets.push(ws);
    ws.on("message", (data: Buffer) => {
      const parsed = JSON.parse(data.toString("utf8")) as unknown;
      if (!Array.isArray(parsed)) return; // the hello
      const replies: unknown[] = [];
      for (const command of parsed as Command[]) {
        commands.push(command);
        const [id, , input] = command;
        if ((input as { hold?: boolean } | null)?.hold) held.push({ ws, id });
        else replies.push([id, 0, { from: name }]);
      }
      if (replies.length > 0) ws.send(JSON.stringify(replies));
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    commands,
    held,
    sockets,
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of server.clients) ws.terminate();
        server.close(() => resolve());
      }),
  };
}

type Peer = Awaited<ReturnType<typeof peer>>;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function inspect(connection: Connection, input: Record<string, unknown>): Promise<unknown> {
  return connection.call(
    (api, options) =>
      (
        api.lock.inspect as unknown as {
          query(input: unknown, options: { timeoutMs: number }): Promise<unknown>;
        }
      ).query(input, options),
    5_000,
  );
}

test("a draining push moves new calls to the next endpoint at once; what was sent is still answered on the old socket", async () => {
  const a = await peer("a");
  const b = await peer("b");
  cleanups.push(a.close, b.close);
  const connection = new Connection(
    resolveWardenOptions({
      url: [a.url, b.url],
      apiKey: "test-key",
      clientId: "draining-test",
      reconnectBaseDelayMs: 50,
      reconnectMaxDelayMs: 100,
    }),
  );
  cleanups.push(() => connection.close());
  await until(() => connection.state === "open", 10_000, 10, "the connection to open");
  const [first, other]: [Peer, Peer] = a.sockets.length === 1 ? [a, b] : [b, a];
  expect(first.sockets).toHaveLength(1);
  expect(other.sockets).toHaveLength(0);

  // A call in flight (a wait, say) when the server says it is shutting down.
  const pending = inspect(connection, { n: 1, hold: true });
  await until(() => first.held.length === 1, 10_000, 10, "the held call to arrive");
  first.sockets[0]!.send(JSON.stringify([[0, "draining", null]]));
  await until(() => connection.state === "open" && other.sockets.length === 1, 10_000, 10);

  // New calls go to the other endpoint only; the draining one receives nothing more.
  const sentBefore = first.commands.length;
  expect(await inspect(connection, { n: 2 })).toEqual({ from: other === a ? "a" : "b" });
  expect(first.commands).toHaveLength(sentBefore);
  // The old socket is still open and its reply still reaches the caller.
  const { ws, id } = first.held[0]!;
  expect(ws.readyState).toBe(ws.OPEN);
  ws.send(JSON.stringify([[id, 0, { answered: "late" }]]));
  expect(await pending).toEqual({ answered: "late" });
  // The server closing the drained socket changes nothing for the connection.
  ws.close(1001, "server shutting down");
  await until(() => ws.readyState === ws.CLOSED, 10_000, 10);
  expect(connection.state).toBe("open");
  expect(await inspect(connection, { n: 3 })).toEqual({ from: other === a ? "a" : "b" });
  expect(first.commands).toHaveLength(sentBefore);
});

test("a call left unanswered on a drained socket that the server then closes is an unknown outcome, never re-sent", async () => {
  const a = await peer("a");
  const b = await peer("b");
  cleanups.push(a.close, b.close);
  const connection = new Connection(
    resolveWardenOptions({
      url: [a.url, b.url],
      apiKey: "test-key",
      clientId: "draining-test-2",
      reconnectBaseDelayMs: 50,
      reconnectMaxDelayMs: 100,
    }),
  );
  cleanups.push(() => connection.close());
  await until(() => connection.state === "open", 10_000, 10, "the connection to open");
  const [first, other]: [Peer, Peer] = a.sockets.length === 1 ? [a, b] : [b, a];
  const pending = inspect(connection, { n: 1, hold: true });
  await until(() => first.held.length === 1, 10_000, 10, "the held call to arrive");
  first.sockets[0]!.send(JSON.stringify([[0, "draining", null]]));
  await until(() => other.sockets.length === 1, 10_000, 10);
  first.sockets[0]!.close(1001, "server shutting down");
  await expect(pending).rejects.toBeInstanceOf(ReplyLostError);
  expect(other.commands.filter(([, op]) => op === "inspect")).toHaveLength(0);
});
