import { join } from "node:path";
import { TESTKIT_DEFAULTS } from "../defaults.js";
import type { ManagedProcess, ProcessState } from "../types.js";
import { LoggedChild } from "./logged-child.js";
import { registry, type Stoppable } from "./registry.js";
import { removeTempDir } from "./temp-dir.js";
import { waitUntil } from "./wait-until.js";

/**
 * The life cycle every server shares: one current process in a private directory,
 * faults (SIGKILL, SIGSTOP/SIGCONT), restarts, and a final idempotent stop that also
 * removes the directory. Subclasses say how to launch and when the server is ready.
 */
export abstract class ManagedServer implements ManagedProcess, Stoppable {
  /** Private directory: log, data, config; removed on stop. */
  readonly dir: string;
  /** stdout and stderr of every launch, appended. */
  readonly logPath: string;
  /** "redis", "sentinel", "mariadb": used in messages. */
  readonly label: string;
  #child: LoggedChild | undefined;
  #paused = false;
  #stopping: Promise<void> | undefined;

  protected constructor(label: string, dir: string, logName: string) {
    this.label = label;
    this.dir = dir;
    this.logPath = join(dir, logName);
    registry().servers.add(this);
  }

  get pid(): number {
    return this.#child?.pid ?? 0;
  }

  get state(): ProcessState {
    if (this.#stopping) return "stopped";
    if (!this.#child?.running) return "exited";
    return this.#paused ? "paused" : "running";
  }

  /** Spawns the server process, replacing the previous (exited) one. */
  protected spawnServer(command: string, args: readonly string[]): LoggedChild {
    if (this.#stopping) throw new Error(`${this.label} in ${this.dir} was stopped for good`);
    const child = new LoggedChild({
      command,
      args,
      logPath: this.logPath,
      cwd: this.dir,
      tempDir: this.dir,
    });
    this.#child = child;
    this.#paused = false;
    return child;
  }

  /** Polls `probe` until true; fails fast with the log tail if `child` exits. */
  protected async waitReady(
    child: LoggedChild,
    what: string,
    probe: () => Promise<boolean>,
  ): Promise<void> {
    await waitUntil(probe, {
      what: `${this.label} ${what}`,
      timeoutMs: TESTKIT_DEFAULTS.startupTimeoutMs,
      child: { process: child, logPath: this.logPath },
    });
  }

  /** Stops the current process, if any, before a restart. */
  protected async stopProcess(): Promise<void> {
    if (this.#stopping) throw new Error(`${this.label} in ${this.dir} was stopped for good`);
    await this.#child?.terminate(TESTKIT_DEFAULTS.stopGraceMs);
  }

  async kill9(): Promise<void> {
    await this.#child?.kill9();
  }

  pause(): void {
    this.#child?.signal("SIGSTOP");
    this.#paused = true;
  }

  resume(): void {
    this.#child?.signal("SIGCONT");
    this.#paused = false;
  }

  stop(): Promise<void> {
    this.#stopping ??= this.#stopOnce();
    return this.#stopping;
  }

  async #stopOnce(): Promise<void> {
    await this.#child?.terminate(TESTKIT_DEFAULTS.stopGraceMs);
    await removeTempDir(this.dir);
    registry().servers.delete(this);
  }
}
