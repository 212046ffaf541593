import { createConnection, createServer, type Server, type Socket } from "node:net";
import type { HostPort } from "../types.js";

/** A loopback TCP load balancer in front of several servers (see {@link startRoundRobinProxy}). */
export interface RoundRobinProxy {
  readonly host: "127.0.0.1";
  readonly port: number;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The targets new connections go to, in rotation order. */
  readonly targets: readonly HostPort[];
  /** Replaces the targets (a restarted instance on a new port); open connections stay. */
  setTargets(targets: readonly HostPort[]): void;
  /** How many accepted connections went to each target (`host:port`), since the start. */
  readonly routed: ReadonlyMap<string, number>;
  /** Stops listening and closes every proxied connection. */
  stop(): Promise<void>;
}

function targetName(target: HostPort): string {
  return `${target.host}:${target.port}`;
}

/**
 * Listens on a free loopback port and forwards each accepted connection, byte for byte, to
 * the next target in rotation, as a round-robin TCP load balancer does. A target that
 * refuses the connection (stopped, killed) is skipped for that connection: the next one
 * is tried, until every target refused (then the client's connection is closed). When
 * either side closes or fails, the other side is closed too.
 */
export async function startRoundRobinProxy(initial: readonly HostPort[]): Promise<RoundRobinProxy> {
  if (initial.length === 0) throw new Error("a proxy needs at least one target");
  let targets: readonly HostPort[] = [...initial];
  let next = 0;
  const routed = new Map<string, number>();
  const open = new Set<Socket>();

  function track(socket: Socket): void {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
  }

  function connect(client: Socket, attemptsLeft: number): void {
    if (attemptsLeft === 0 || client.destroyed) {
      client.destroy();
      return;
    }
    const target = targets[next % targets.length]!;
    next = (next + 1) % targets.length;
    const upstream = createConnection({ host: target.host, port: target.port });
    let connected = false;
    upstream.once("connect", () => {
      connected = true;
      track(upstream);
      routed.set(targetName(target), (routed.get(targetName(target)) ?? 0) + 1);
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
    upstream.on("error", () => {
      if (!connected) connect(client, attemptsLeft - 1);
      else client.destroy();
    });
    upstream.once("close", () => {
      if (connected) client.destroy();
    });
    client.once("close", () => upstream.destroy());
  }

  const server: Server = createServer({ pauseOnConnect: true }, (client) => {
    track(client);
    client.on("error", () => client.destroy());
    connect(client, targets.length);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: "127.0.0.1", port: 0 }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("proxy has no port");
  const port = address.port;
  return {
    host: "127.0.0.1",
    port,
    url: `http://127.0.0.1:${port}`,
    get targets() {
      return targets;
    },
    setTargets(replacement) {
      if (replacement.length === 0) throw new Error("a proxy needs at least one target");
      targets = [...replacement];
      next = 0;
    },
    routed,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
