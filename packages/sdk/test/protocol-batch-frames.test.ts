import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { WebSocketServer, type WebSocket as ServerSocket } from "ws";
import { LockSocket, MAX_COMMANDS_PER_FRAME } from "../src/transport/lock-socket.js";
import { ReplyLostError } from "../src/transport/transport-errors.js";
import { startStack, type Stack } from "./support/stack.js";
import { until } from "./support/until.js";

type Command = [number, string, unknown];

/**
 * A WebSocket peer speaking the lock subprotocol that records every command frame and
 * answers only the commands `answer` picks (the rest never get a reply).
 */
async function peer(answer: (command: Command) => boolean) {
  const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const frames: Command[][] = [];
  server.on("connection", (ws: ServerSocket) => {
    ws.on("message", (data: Buffer) => {
      const parsed = JSON.parse(data.toString("utf8")) as unknown;
      if (!Array.isArray(parsed)) return; // the hello
      const commands = parsed as Command[];
      frames.push(commands);
      const replies = commands.filter(answer).map(([id]) => [id, 0, { echoed: id }]);
      if (replies.length > 0) ws.send(JSON.stringify(replies));
    });
  });
  const port = (server.address() as AddressInfo).port;
  const opened = { value: false };
  const socket = new LockSocket(`ws://127.0.0.1:${port}/trpc`, {
    connectionParams: { clientId: "frames-test" },
    pingIntervalMs: 60_000,
    pongTimeoutMs: 60_000,
    onOpen: () => {
      opened.value = true;
    },
    onLost: () => undefined,
  });
  await until(() => opened.value, 10_000, 10, "the lock socket to open");
  return {
    frames,
    socket,
    async close() {
      await socket.close(new ReplyLostError("test over"));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("lock socket frames and reply deadlines", () => {
  test("a turn's commands leave in one frame, split past the server's command limit", async () => {
    const remote = await peer(() => true);
    try {
      expect(MAX_COMMANDS_PER_FRAME).toBe(512);
      const calls = Array.from({ length: 600 }, (_, i) =>
        remote.socket.request("mutation", "lock.inspect", { n: i }, 10_000),
      );
      const results = await Promise.all(calls);
      expect(results).toHaveLength(600);
      // Two frames: 512 commands, then the other 88; each command once, in order.
      expect(remote.frames.map((frame) => frame.length)).toEqual([512, 88]);
      const sent = remote.frames.flat();
      expect(sent.map(([, op, input]) => [op, (input as { n: number }).n])).toEqual(
        Array.from({ length: 600 }, (_, i) => ["inspect", i]),
      );
      // Each caller got the reply to its own command.
      expect(results.map((result) => (result as { echoed: number }).echoed)).toEqual(
        sent.map(([id]) => id),
      );

      const few = await Promise.all([
        remote.socket.request("mutation", "lock.release", { n: 1 }, 10_000),
        remote.socket.request("query", "client.list", { n: 2 }, 10_000),
      ]);
      expect(few).toHaveLength(2);
      expect(remote.frames.at(-1)).toEqual([
        [expect.any(Number), "release", { n: 1 }],
        [expect.any(Number), "call", ["query", "client.list", { n: 2 }]],
      ]);
    } finally {
      await remote.close();
    }
  });

  test("each call without a reply fails as lost at its own deadline; answered ones do not", async () => {
    // Answers only the inputs marked `answer`.
    const remote = await peer(([, , input]) => (input as { answer?: boolean }).answer === true);
    try {
      const settled: string[] = [];
      const track = (name: string, promise: Promise<unknown>) =>
        promise.then(
          () => settled.push(`${name}:ok`),
          (error: unknown) =>
            settled.push(`${name}:${error instanceof ReplyLostError ? error.message : "other"}`),
        );
      const long = track(
        "long",
        remote.socket.request("mutation", "lock.inspect", { answer: false }, 1_500),
      );
      const short = track(
        "short",
        remote.socket.request("mutation", "lock.inspect", { answer: false }, 200),
      );
      const answered = track(
        "answered",
        remote.socket.request("mutation", "lock.inspect", { answer: true }, 200),
      );
      await Promise.all([short, answered]);
      expect(settled).toContain("answered:ok");
      expect(settled).toContain("short:no reply within 200 ms");
      // The longer deadline is still running when the shorter one has fired.
      expect(settled).not.toContain("long:no reply within 1500 ms");
      await long;
      expect(settled.at(-1)).toBe("long:no reply within 1500 ms");
    } finally {
      await remote.close();
    }
  });
});

describe("against the server", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });

  afterAll(async () => {
    await stack?.close();
  });

  test("more lock calls in one turn than a frame may carry all run", async () => {
    const resource = await stack.resource("many", { defaultLeaseMs: 30_000 });
    const warden = stack.client();
    await (await warden.tryAcquire(resource, "warm"))?.release();
    const keys = Array.from({ length: 700 }, (_, i) => `k-${i}`);
    const locks = await Promise.all(keys.map((key) => warden.tryAcquire(resource, key)));
    expect(locks.filter((lock) => lock !== null)).toHaveLength(700);
    // And their 700 releases, again in one turn.
    await Promise.all(locks.map((lock) => lock!.release()));
    expect(await warden.inspect(resource, "k-699")).toBeNull();
    await warden.close();
  });
});
