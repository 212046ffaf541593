import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";
import { UnauthorizedError } from "../src/index.js";
import { LOCK_SUBPROTOCOL } from "../src/transport/lock-socket.js";
import { startStack, type Stack } from "./support/stack.js";
import { until } from "./support/until.js";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.close();
});

type Entry = [number, 0 | 1 | "released" | "limits", unknown];

/** A bare protocol client: every frame the server sends, parsed. */
async function rawClient(apiKey: string, clientId = "raw-client") {
  const ws = new WebSocket(`${stack.url.replace("http", "ws")}/trpc`, LOCK_SUBPROTOCOL);
  const frames: Entry[][] = [];
  ws.on("message", (data: Buffer) => frames.push(JSON.parse(data.toString("utf8")) as Entry[]));
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  expect(ws.protocol).toBe(LOCK_SUBPROTOCOL);
  ws.send(JSON.stringify({ hello: { apiKey, clientId } }));
  return {
    ws,
    frames,
    send: (commands: unknown[]) => ws.send(JSON.stringify(commands)),
    async replies(count: number): Promise<Map<number, Entry>> {
      await until(() => frames.flat().filter((entry) => entry[0] !== 0).length >= count);
      return new Map(
        frames
          .flat()
          .filter((entry) => entry[0] !== 0)
          .map((entry) => [entry[0], entry]),
      );
    },
  };
}

describe("batched lock protocol", () => {
  test("a frame of commands is answered in one frame, each command on its own", async () => {
    const resource = await stack.resource("batch");
    const client = await rawClient(stack.apiKey);
    client.send([
      [1, "acquire", { resource, businessKey: "a", ownerId: "owner-1" }],
      [2, "acquire", { resource, businessKey: "b", ownerId: "owner-1" }],
      [3, "acquire", { resource, businessKey: "a", ownerId: "owner-2" }],
      [4, "acquire", { resource, businessKey: "", ownerId: "owner-1" }],
      [5, "nonsense", {}],
    ]);
    const replies = await client.replies(5);
    // One frame answers the five commands (the other one is the `limits` push after the hello).
    expect(client.frames.filter((frame) => frame.some((entry) => entry[0] !== 0))).toHaveLength(1);
    expect(client.frames.flat().find((entry) => entry[1] === "limits")?.[2]).toEqual({
      maxFrameBytes: 64 * 1024,
      renewKinds: ["permit", "rwlock"],
    });
    const [, ok1, grant] = replies.get(1)!;
    expect(ok1).toBe(0);
    expect(grant).toMatchObject({ granted: true, tier: "redis", currentTier: "redis" });
    expect(replies.get(2)![2]).toMatchObject({ granted: true });
    // Same key, other owner, same batch: one of the two got it, the other is refused.
    expect(replies.get(3)![2]).toMatchObject({
      granted: false,
      holder: { clientId: "raw-client", ownerId: "owner-1" },
    });
    // Bad input: a typed error in the tRPC API's shape, and nothing changed.
    expect(replies.get(4)![1]).toBe(1);
    expect(replies.get(4)![2]).toMatchObject({ data: { code: "BAD_REQUEST" } });
    expect(replies.get(5)![2]).toMatchObject({ data: { wardenCode: "INVALID_ARGUMENT" } });
    const lockId = (grant as { lockId: string }).lockId;
    client.send([[6, "release", { resource, businessKey: "a", lockId, tier: "redis" }]]);
    const after = await client.replies(6);
    expect(after.get(6)![2]).toMatchObject({ released: true, currentTier: "redis" });
    client.ws.close();
  });

  test("an unknown or revoked API key refuses every command of the frame", async () => {
    const resource = await stack.resource("auth");
    const wrong = await rawClient("wdn_not-a-key");
    wrong.send([[1, "acquire", { resource, businessKey: "k", ownerId: "o" }]]);
    expect((await wrong.replies(1)).get(1)![2]).toMatchObject({
      data: { wardenCode: "UNAUTHORIZED" },
    });
    wrong.ws.close();

    // A second key of the tenant, revoked the way an operator does it.
    const key = `wdn_${randomBytes(32).toString("base64url")}`;
    const keyId = randomBytes(12).toString("hex");
    await stack.server().services.prisma.apiKey.create({
      data: {
        id: keyId,
        tenantId: stack.tenantId,
        name: "revoked in a test",
        prefix: key.slice(0, 12),
        hash: createHash("sha256").update(key, "utf8").digest("hex"),
      },
      select: { id: true },
    });
    const warden = stack.client({ apiKey: key });
    const lock = await warden.tryAcquire(resource, "k");
    expect(lock).not.toBeNull();
    await lock!.release();
    expect(await stack.server().services.apiKeys.revoke(keyId)).toBe(true);
    // The open socket is closed or its next frame refused; either way no lock call works.
    await until(
      () =>
        warden.tryAcquire(resource, "k").then(
          () => false,
          (error: unknown) => error instanceof UnauthorizedError,
        ),
      10_000,
      50,
      "UnauthorizedError after the revoke",
    );
  });

  test("the lock calls of one turn leave the SDK in one frame", async () => {
    const resource = await stack.resource("turn");
    const warden = stack.client();
    // The first call opens the connection.
    await (await warden.tryAcquire(resource, "warm"))?.release();
    const sent: string[] = [];
    // eslint-disable-next-line @typescript-eslint/unbound-method -- restored below
    const original = WebSocket.prototype.send;
    WebSocket.prototype.send = function (this: WebSocket, data: unknown, ...rest: unknown[]) {
      // Commands only (`[[id,"op",…`): the server runs in this process and answers too.
      if (this.protocol === LOCK_SUBPROTOCOL && typeof data === "string" && /^\[\[\d+,"/.test(data))
        sent.push(data);
      return (original as (...args: unknown[]) => void).call(this, data, ...rest);
    } as typeof original;
    let locks;
    try {
      locks = await Promise.all(
        Array.from({ length: 20 }, (_, i) => warden.tryAcquire(resource, `k${i}`)),
      );
    } finally {
      WebSocket.prototype.send = original;
    }
    expect(locks.every((lock) => lock !== null)).toBe(true);
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]!)).toHaveLength(20);
    await Promise.all(locks.map((lock) => lock!.release()));
  });

  test("more commands than a frame may carry are refused one by one, the rest run", async () => {
    const resource = await stack.resource("cap");
    const client = await rawClient(stack.apiKey);
    const commands = Array.from({ length: 514 }, (_, i) => [
      i + 1,
      "inspect",
      { resource, businessKey: `k${i}` },
    ]);
    client.send(commands);
    const replies = await client.replies(514);
    expect(replies.get(512)![1]).toBe(0);
    expect(replies.get(513)![2]).toMatchObject({ data: { wardenCode: "INVALID_ARGUMENT" } });
    expect(replies.get(514)![2]).toMatchObject({ data: { wardenCode: "INVALID_ARGUMENT" } });
    client.ws.close();
  });

  test("a closed connection ends its waits: the key goes to the next waiter", async () => {
    const resource = await stack.resource("wait");
    const holder = stack.client();
    const lock = await holder.acquire(resource, "k");
    const client = await rawClient(stack.apiKey, "waiter");
    client.send([[1, "acquire", { resource, businessKey: "k", ownerId: "w", waitMs: 20_000 }]]);
    await until(async () => (await holder.waiters(resource, "k")).length === 1);
    client.ws.terminate();
    await until(async () => (await holder.waiters(resource, "k")).length === 0);
    await lock.release();
  });

  test("frames follow the server's message limit, which it tells after the hello", async () => {
    const small = await startStack({ WARDEN_MAX_BODY_BYTES: "8192" });
    try {
      const resource = await small.resource("limit", { defaultLeaseMs: 10_000 });
      const warden = small.client();
      await (await warden.tryAcquire(resource, "warm"))?.release();
      // ~300 × 150 bytes: far over 8 KiB, and over the SDK's 15 KiB default too.
      const keys = Array.from({ length: 300 }, (_, i) => `${"k".repeat(100)}-${i}`);
      const locks = await Promise.all(keys.map((key) => warden.tryAcquire(resource, key)));
      expect(locks.filter((lock) => lock !== null)).toHaveLength(300);
      expect(warden.state).toBe("open");
      await Promise.all(locks.map((lock) => lock!.release()));
    } finally {
      await small.close();
    }
  });
});
