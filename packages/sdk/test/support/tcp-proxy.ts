import { createServer, connect, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

/** A TCP proxy in front of the server, to drop connections and replies at will. */
export interface TcpProxy {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Destroys every connection (the client sees its socket drop; the server keeps running). */
  cut(): void;
  /** While true, bytes from the server are dropped: requests arrive, replies never do. */
  blackhole: boolean;
  /** Bytes from the server are kept back (requests still arrive) until {@link deliver}. */
  holdReplies(): void;
  /** Sends on what {@link holdReplies} kept back, and stops keeping replies back. */
  deliver(): void;
  close(): Promise<void>;
}

/** Starts a proxy to `127.0.0.1:targetPort`. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let held: [Socket, Buffer][] | null = null;
  const proxy = {
    url: "",
    blackhole: false,
    holdReplies() {
      held = [];
    },
    deliver() {
      const kept = held ?? [];
      held = null;
      for (const [client, chunk] of kept) if (!client.destroyed) client.write(chunk);
    },
    cut() {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    close: async () => {
      proxy.cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, "127.0.0.1");
    sockets.add(client);
    sockets.add(upstream);
    client.on("data", (chunk) => upstream.write(chunk));
    upstream.on("data", (chunk) => {
      if (proxy.blackhole) return;
      if (held) held.push([client, chunk]);
      else client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
