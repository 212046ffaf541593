import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { ManagedChild } from "../procs/managed-child.js";
import type { ProxyMode, ProxyStats } from "./proxy-mode.js";
import type { ProxyReply, ProxyRequest, ProxyRoute } from "./proxy-protocol.js";

const ENTRY = fileURLToPath(new URL("./proxy-main.ts", import.meta.url));
const REQUEST_TIMEOUT_MS = 10_000;

/** The proxy process seen from the run: ports to route through, modes to switch. */
export class ProxyControl {
  private nextId = 1;
  private readonly waiting = new Map<number, (reply: ProxyReply) => void>();

  private constructor(
    private readonly child: ManagedChild,
    /** The proxy port of each route, by route name. */
    readonly ports: Readonly<Record<string, number>>,
    private readonly channel: NodeJS.EventEmitter,
  ) {
    channel.on("message", (reply: ProxyReply) => {
      if (reply.type === "ready") return;
      this.waiting.get(reply.id)?.(reply);
      this.waiting.delete(reply.id);
    });
  }

  /** Starts the proxy process and resolves once every route listens. */
  static async start(routes: readonly ProxyRoute[], logPath: string): Promise<ProxyControl> {
    const child = await ManagedChild.start({
      role: "proxy",
      id: "proxy",
      entry: ENTRY,
      env: { CHAOS_PROXY_ROUTES: JSON.stringify(routes) },
      logPath,
      ipc: true,
    });
    const channel = child.channel();
    const timer = setTimeout(() => child.killSync(), 30_000);
    const [ready] = (await Promise.race([
      once(channel, "message"),
      child.exited.then(() => {
        throw new Error(`the proxy process exited at start; see ${logPath}`);
      }),
    ])) as [ProxyReply];
    clearTimeout(timer);
    if (ready.type !== "ready") throw new Error("the proxy process did not report its ports");
    return new ProxyControl(child, ready.ports, channel);
  }

  /** Switches every proxy of `group` to `mode`; resolves with the group's counters. */
  setMode(group: string, mode: ProxyMode): Promise<ProxyStats> {
    return this.request({ id: this.nextId++, cmd: "mode", group, mode });
  }

  /** The group's cumulative counters. */
  stats(group: string): Promise<ProxyStats> {
    return this.request({ id: this.nextId++, cmd: "stats", group });
  }

  async stop(): Promise<void> {
    await this.child.terminate(2_000);
  }

  private request(request: ProxyRequest): Promise<ProxyStats> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(request.id);
        reject(new Error(`proxy ${request.cmd} got no answer within ${REQUEST_TIMEOUT_MS} ms`));
      }, REQUEST_TIMEOUT_MS);
      this.waiting.set(request.id, (reply) => {
        clearTimeout(timer);
        if (reply.type === "reply") resolve(reply.stats);
        else reject(new Error(reply.type === "failed" ? reply.message : "unexpected proxy reply"));
      });
      if (!this.child.send(request)) {
        clearTimeout(timer);
        this.waiting.delete(request.id);
        reject(new Error("the proxy process is gone"));
      }
    });
  }
}
