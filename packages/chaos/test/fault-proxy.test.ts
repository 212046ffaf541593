import { once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FaultProxy } from "../src/proxy/fault-proxy.js";

let echo: Server;
let echoPort = 0;
const proxies: FaultProxy[] = [];
const sockets: Socket[] = [];

beforeAll(async () => {
  echo = createServer((socket) => {
    // Reset by the proxy in some tests: expected, not an uncaught error.
    socket.on("error", () => undefined);
    socket.pipe(socket);
  });
  echo.listen(0, "127.0.0.1");
  await once(echo, "listening");
  const address = echo.address();
  echoPort = typeof address === "object" && address ? address.port : 0;
});

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});

afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

async function startProxy(): Promise<FaultProxy> {
  const proxy = new FaultProxy({ host: "127.0.0.1", port: echoPort });
  await proxy.listen();
  proxies.push(proxy);
  return proxy;
}

async function dial(port: number): Promise<Socket> {
  const socket = connect(port, "127.0.0.1");
  sockets.push(socket);
  socket.setNoDelay(true);
  socket.on("error", () => undefined);
  await once(socket, "connect");
  return socket;
}

/** Resolves with the bytes echoed back once `expected` bytes came, and how long it took. */
function roundTrip(socket: Socket, payload: string): Promise<{ text: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let text = "";
    const onData = (chunk: Buffer): void => {
      text += chunk.toString();
      if (text.length >= payload.length) {
        socket.off("data", onData);
        resolve({ text, ms: performance.now() - started });
      }
    };
    socket.on("data", onData);
    socket.once("error", reject);
    socket.write(payload);
  });
}

/** Everything `socket` receives from now on (a removed data listener would lose bytes). */
function collect(socket: Socket): { text: string } {
  const sink = { text: "" };
  socket.on("data", (chunk: Buffer) => (sink.text += chunk.toString()));
  return sink;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("fault proxy on real loopback sockets", () => {
  it("passes bytes through unchanged", async () => {
    const proxy = await startProxy();
    const socket = await dial(proxy.port);
    expect((await roundTrip(socket, "hello")).text).toBe("hello");
    expect(proxy.stats.connections).toBe(1);
  });

  it("delays each direction by latency plus jitter and keeps the byte order", async () => {
    const proxy = await startProxy();
    const socket = await dial(proxy.port);
    await proxy.setMode({ kind: "delay", latencyMs: 100, jitterMs: 50 });
    const { ms } = await roundTrip(socket, "ping");
    // Both directions wait at least the latency.
    expect(ms).toBeGreaterThanOrEqual(195);
    const payload = Array.from({ length: 200 }, (_, i) => `<${i}>`).join("");
    let text = "";
    socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
    for (let i = 0; i < 200; i += 1) socket.write(`<${i}>`);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(text).toBe(payload);
    expect(proxy.stats.delayedChunks).toBeGreaterThan(2);
  });

  it("blackholes open and new connections, then lets the held bytes through", async () => {
    const proxy = await startProxy();
    const open = await dial(proxy.port);
    const openSeen = collect(open);
    await proxy.setMode({ kind: "blackhole" });
    open.write("held");
    const fresh = await dial(proxy.port);
    const freshSeen = collect(fresh);
    fresh.write("fresh");
    await sleep(300);
    expect(openSeen.text).toBe("");
    expect(freshSeen.text).toBe("");
    expect(proxy.stats.stalledConnections).toBe(2);
    await proxy.setMode({ kind: "pass" });
    await sleep(200);
    expect(openSeen.text).toBe("held");
    expect(freshSeen.text).toBe("fresh");
  });

  it("resets open connections and every new one", async () => {
    const proxy = await startProxy();
    const open = await dial(proxy.port);
    const openError = once(open, "error");
    await proxy.setMode({ kind: "reset" });
    const [error] = (await openError) as [NodeJS.ErrnoException];
    expect(error.code).toBe("ECONNRESET");
    const fresh = connect(proxy.port, "127.0.0.1");
    sockets.push(fresh);
    const [freshError] = (await once(fresh, "error")) as [NodeJS.ErrnoException];
    expect(freshError.code).toBe("ECONNRESET");
    expect(proxy.stats.resets).toBe(2);
  });

  it("refuses connections while refusing, and listens on the same port again after", async () => {
    const proxy = await startProxy();
    const port = proxy.port;
    await proxy.setMode({ kind: "refuse" });
    const refused = connect(port, "127.0.0.1");
    sockets.push(refused);
    const [error] = (await once(refused, "error")) as [NodeJS.ErrnoException];
    expect(error.code).toBe("ECONNREFUSED");
    await proxy.setMode({ kind: "pass" });
    expect(proxy.port).toBe(port);
    expect((await roundTrip(await dial(port), "back")).text).toBe("back");
  });
});
