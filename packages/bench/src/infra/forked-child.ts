import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { isChildMessage, type RequestMessage } from "./ipc-protocol.js";

/** Options of {@link forkTypeScript}. */
export interface ForkOptions {
  /** Names the child in errors. */
  readonly label: string;
  /** The child's environment (replaces the parent's). */
  readonly env: NodeJS.ProcessEnv;
  /** Extra node flags, e.g. `--cpu-prof`. */
  readonly nodeFlags?: readonly string[];
  /** Longest wait for the child's `ready` message, in ms. */
  readonly readyTimeoutMs: number;
}

const TSX_LOADER = import.meta.resolve("tsx");

/**
 * A bench child process (the Warden server, the load generator) reached over IPC. A child
 * exits by itself when the IPC channel closes, so a coordinator that dies — even by
 * SIGKILL — does not leave it running.
 */
export class ForkedChild {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  private exited: Error | null = null;
  private readonly exit: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly label: string,
    /** What the child reported in its `ready` message. */
    readonly info: Record<string, unknown>,
  ) {
    this.exit = once(child, "exit").then(([code, signal]) => {
      this.exited = new Error(`${label} exited (code ${String(code)}, signal ${String(signal)})`);
      for (const waiter of this.pending.values()) waiter.reject(this.exited);
      this.pending.clear();
    });
    child.on("message", (message: unknown) => {
      if (!isChildMessage(message) || message.type !== "reply") return;
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      if (message.ok) waiter.resolve(message.value);
      else waiter.reject(new Error(`${label}: ${message.error}`));
    });
  }

  /** OS pid of the child. */
  get pid(): number {
    return this.child.pid!;
  }

  /** Sends one request and resolves with the child's answer. */
  request<T>(body: unknown): Promise<T> {
    if (this.exited) return Promise.reject(this.exited);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      const message: RequestMessage = { type: "request", id, body };
      this.child.send(message, (error) => {
        if (error && this.pending.delete(id)) reject(error);
      });
    });
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the child is gone. */
  async stop(graceMs: number): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
    await this.exit;
    clearTimeout(timer);
  }

  /**
   * Forks `modulePath` (TypeScript, run through tsx's loader) and waits for its `ready`
   * message. The child's stdout and stderr go to our stderr.
   */
  static async fork(modulePath: string, options: ForkOptions): Promise<ForkedChild> {
    const child = fork(modulePath, [], {
      execArgv: ["--import", TSX_LOADER, ...(options.nodeFlags ?? [])],
      env: options.env,
      serialization: "advanced",
      // Both to our stderr: stdout carries only the report, so `pnpm bench > r.md` works.
      stdio: ["ignore", 2, 2, "ipc"],
    });
    const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${options.label} not ready after ${options.readyTimeoutMs} ms`)),
        options.readyTimeoutMs,
      );
      child.on("message", (message: unknown) => {
        if (isChildMessage(message) && message.type === "ready") {
          clearTimeout(timer);
          resolve(message.info);
        }
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        reject(
          new Error(
            `${options.label} exited before it was ready (code ${String(code)}, signal ${String(signal)})`,
          ),
        );
      });
    });
    try {
      return new ForkedChild(child, options.label, await ready);
    } catch (error) {
      child.kill("SIGKILL");
      throw error;
    }
  }
}
