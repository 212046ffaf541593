import { createServer, connect, type Server, type Socket } from "node:net";
import type { HostPort } from "@warden/testkit";
import { Lane } from "./lane.js";
import { emptyStats, type ProxyMode, type ProxyStats } from "./proxy-mode.js";

/** Both sockets and both directions of one proxied connection. */
interface Link {
  readonly client: Socket;
  readonly upstream: Socket;
  readonly up: Lane;
  readonly down: Lane;
}

/**
 * A TCP proxy on 127.0.0.1 in front of one upstream, whose {@link ProxyMode} can be changed
 * while connections are open: this kernel has no `tc netem` and there is no toxiproxy.
 * The port stays the same for the proxy's life, also across `refuse`.
 */
export class FaultProxy {
  readonly stats: ProxyStats = emptyStats();
  private readonly server: Server;
  private readonly links = new Set<Link>();
  private modeNow: ProxyMode = { kind: "pass" };
  private portNow = 0;
  private listening = false;

  constructor(readonly upstream: HostPort) {
    this.server = createServer((client) => this.accept(client));
  }

  /** The port clients connect to (0 before {@link listen}). */
  get port(): number {
    return this.portNow;
  }

  get mode(): ProxyMode {
    return this.modeNow;
  }

  /** Starts listening on `port` (0: any free port). */
  async listen(port = 0): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, "127.0.0.1", () => {
        this.server.off("error", reject);
        resolve();
      });
    });
    this.listening = true;
    const address = this.server.address();
    if (address && typeof address === "object") this.portNow = address.port;
  }

  /** Switches the mode; open connections feel it at once. */
  async setMode(mode: ProxyMode): Promise<void> {
    const previous = this.modeNow;
    this.modeNow = mode;
    if (mode.kind === "reset" || mode.kind === "refuse") {
      for (const link of [...this.links]) this.reset(link);
    }
    if (mode.kind === "refuse" && this.listening) {
      this.listening = false;
      await new Promise<void>((resolve) => this.server.close(() => resolve()));
    }
    if (mode.kind !== "refuse" && !this.listening) await this.listen(this.portNow);
    if (mode.kind === "blackhole" && previous.kind !== "blackhole") {
      this.stats.stalledConnections += this.links.size;
    }
    if (mode.kind !== "blackhole") {
      for (const link of this.links) {
        link.up.release(mode);
        link.down.release(mode);
      }
    }
  }

  /** Resets every connection and stops listening. */
  async close(): Promise<void> {
    for (const link of [...this.links]) this.reset(link);
    if (this.listening) {
      this.listening = false;
      await new Promise<void>((resolve) => this.server.close(() => resolve()));
    }
  }

  private accept(client: Socket): void {
    this.stats.connections += 1;
    if (this.modeNow.kind === "reset" || this.modeNow.kind === "refuse") {
      this.stats.resets += 1;
      client.resetAndDestroy();
      return;
    }
    if (this.modeNow.kind === "blackhole") this.stats.stalledConnections += 1;
    const upstream = connect(this.upstream.port, this.upstream.host);
    const link: Link = {
      client,
      upstream,
      up: new Lane(client, upstream, this.stats),
      down: new Lane(upstream, client, this.stats),
    };
    this.links.add(link);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    client.on("data", (chunk: Buffer) => link.up.push(chunk, this.modeNow));
    upstream.on("data", (chunk: Buffer) => link.down.push(chunk, this.modeNow));
    client.on("end", () => link.up.push(null, this.modeNow));
    upstream.on("end", () => link.down.push(null, this.modeNow));
    const drop = (): void => this.drop(link);
    client.on("error", drop);
    upstream.on("error", drop);
    client.on("close", drop);
    upstream.on("close", drop);
  }

  /** One side is gone: so is the other (a clean end was already forwarded in order). */
  private drop(link: Link): void {
    if (!this.links.delete(link)) return;
    link.up.dispose();
    link.down.dispose();
    link.client.destroy();
    link.upstream.destroy();
  }

  private reset(link: Link): void {
    this.links.delete(link);
    link.up.dispose();
    link.down.dispose();
    this.stats.resets += 1;
    link.client.resetAndDestroy();
    link.upstream.resetAndDestroy();
  }
}
