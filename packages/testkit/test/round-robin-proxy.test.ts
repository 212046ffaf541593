import { once } from "node:events";
import { createConnection, createServer, type Server } from "node:net";
import { afterAll, expect, it } from "vitest";
import { startRoundRobinProxy, type RoundRobinProxy } from "../src/index.js";

const servers: Server[] = [];
let proxy: RoundRobinProxy | undefined;
afterAll(async () => {
  await proxy?.stop();
  for (const server of servers) server.close();
});

/** A server that answers every connection with its name and closes it. */
async function namedServer(name: string): Promise<{ host: string; port: number }> {
  const server = createServer((socket) => socket.end(name));
  servers.push(server);
  server.listen({ host: "127.0.0.1", port: 0 });
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { host: "127.0.0.1", port: address.port };
}

async function ask(port: number): Promise<string> {
  const socket = createConnection({ host: "127.0.0.1", port });
  let text = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => (text += chunk));
  await once(socket, "close");
  return text;
}

it("sends each new connection to the next target, skipping one that refuses", async () => {
  const targets = [await namedServer("a"), await namedServer("b"), await namedServer("c")];
  proxy = await startRoundRobinProxy(targets);
  const answers: string[] = [];
  for (let i = 0; i < 6; i += 1) answers.push(await ask(proxy.port));
  expect(answers).toEqual(["a", "b", "c", "a", "b", "c"]);
  // "b" goes away: its turn falls to the next target, nobody's connection is lost.
  await new Promise((resolve) => servers[1]!.close(resolve));
  const after: string[] = [];
  for (let i = 0; i < 3; i += 1) after.push(await ask(proxy.port));
  expect(after).toEqual(["a", "c", "a"]);
  expect(proxy.routed.get(`127.0.0.1:${targets[0]!.port}`)).toBe(4);
});
