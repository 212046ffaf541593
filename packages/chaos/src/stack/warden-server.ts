import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SERVER_NODE_FLAGS } from "@warden/server/node-flags";
import type { EventLog } from "../log/event-log.js";
import { ManagedChild } from "../procs/managed-child.js";

const SERVER_MAIN = fileURLToPath(new URL("../../../../apps/server/src/main.ts", import.meta.url));
const NAT_HOOK = fileURLToPath(new URL("../procs/preload/nat-hook.ts", import.meta.url));
const READY_TIMEOUT_MS = 60_000;

/** What a server process needs that differs between the two. */
export interface WardenServerSpec {
  /** `a`, `b`, `c`… */
  readonly id: string;
  readonly port: number;
  /** The server's environment: database, sentinels, tier probe settings… */
  readonly env: Readonly<Record<string, string>>;
  readonly runDir: string;
  readonly events: EventLog;
}

/**
 * One Warden server process (`apps/server/src/main.ts`), with its connections routed
 * through the fault proxies by the NAT preload, killable and restartable on its port.
 */
export class WardenServer {
  readonly url: string;
  private child: ManagedChild | null = null;

  constructor(private readonly spec: WardenServerSpec) {
    this.url = `http://127.0.0.1:${spec.port}`;
  }

  get id(): string {
    return this.spec.id;
  }

  get running(): boolean {
    return this.child?.running ?? false;
  }

  /** Spawns the process and resolves once it answers /healthz. */
  async start(): Promise<void> {
    const { id, events } = this.spec;
    const child = await ManagedChild.start({
      role: "server",
      id,
      entry: SERVER_MAIN,
      preloads: [NAT_HOOK],
      // The flags the `warden-server` bin runs with: faults hit the process operators deploy.
      nodeFlags: SERVER_NODE_FLAGS,
      env: {
        ...this.spec.env,
        WARDEN_PORT: String(this.spec.port),
        WARDEN_INSTANCE_ID: `chaos-${id}`,
      },
      logPath: join(this.spec.runDir, `server-${id}.log`),
      cwd: this.spec.runDir,
    });
    this.child = child;
    events.record({ src: "orchestrator", ev: "process-start", role: "server", id, pid: child.pid });
    void child.exited.then(({ code, signal }) =>
      events.record({
        src: "orchestrator",
        ev: "process-exit",
        role: "server",
        id,
        pid: child.pid,
        code,
        signal,
      }),
    );
    await this.waitHealthy(child);
  }

  /** kill -9, resolves once the process is gone. */
  async kill9(): Promise<void> {
    await this.child?.kill9();
  }

  /** Graceful stop (SIGTERM), SIGKILL after 5 s. */
  async stop(): Promise<void> {
    await this.child?.terminate(5_000);
  }

  private async waitHealthy(child: ManagedChild): Promise<void> {
    const deadline = performance.now() + READY_TIMEOUT_MS;
    while (performance.now() < deadline) {
      if (!child.running)
        throw new Error(`server ${this.spec.id} exited at start; see server-${this.spec.id}.log`);
      const ok = await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(1_000) }).then(
        (res) => res.ok,
        () => false,
      );
      if (ok) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`server ${this.spec.id} did not answer /healthz within ${READY_TIMEOUT_MS} ms`);
  }
}
