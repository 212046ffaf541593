import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { installExitHooks } from "./exit-hooks.js";
import { removePidRecord, writePidRecord } from "./pid-records.js";
import { registry, type TrackedChild } from "./registry.js";

/** How a child ended: an exit code, or the signal that killed it. */
export interface ExitStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** What to run and where its output goes. */
export interface SpawnSpec {
  readonly command: string;
  readonly args: readonly string[];
  /** stdout and stderr are appended here, so a restart keeps the earlier history. */
  readonly logPath: string;
  readonly cwd?: string;
  /** Removed together with the process if its owner dies; see `reapOrphans`. */
  readonly tempDir?: string;
}

/**
 * One spawned OS process, registered from spawn to exit in memory (for stop-all and exit
 * hooks) and on disk (for `reapOrphans` after a hard crash).
 */
export class LoggedChild implements TrackedChild {
  readonly pid: number;
  /** Resolves when the process has exited and been reaped. */
  readonly exited: Promise<ExitStatus>;
  #status: ExitStatus | undefined;

  constructor(spec: SpawnSpec) {
    installExitHooks();
    const log = openSync(spec.logPath, "a");
    let child: ChildProcess;
    try {
      child = spawn(spec.command, spec.args, { cwd: spec.cwd, stdio: ["ignore", log, log] });
    } finally {
      // The child holds its own copy of the descriptor.
      closeSync(log);
    }
    if (child.pid === undefined) {
      // spawn reports ENOENT asynchronously as an "error" event; swallow it, throw here.
      child.on("error", () => undefined);
      throw new Error(`cannot spawn ${spec.command}: is it installed and on PATH?`);
    }
    const pid = child.pid;
    this.pid = pid;
    writePidRecord(pid, `${spec.command} ${spec.args.join(" ")}`, spec.tempDir);
    registry().children.add(this);
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        this.#status = { code, signal };
        registry().children.delete(this);
        removePidRecord(pid);
        resolve(this.#status);
      });
    });
  }

  /** False once the process has exited. */
  get running(): boolean {
    return this.#status === undefined;
  }

  /** Sends a signal; a no-op once the process has exited. */
  signal(signal: NodeJS.Signals): void {
    if (!this.running) return;
    try {
      process.kill(this.pid, signal);
    } catch (error) {
      // It died between our check and the kill; "exit" has not been delivered yet.
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
  }

  /** SIGKILL for exit hooks, where nothing can be awaited. */
  killSync(): void {
    this.signal("SIGKILL");
  }

  /** SIGKILL and wait for the exit. */
  async kill9(): Promise<void> {
    this.signal("SIGKILL");
    await this.exited;
  }

  /** The exit status, or `undefined` if the process still runs after `timeoutMs`. */
  async exitWithin(timeoutMs: number): Promise<ExitStatus | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGTERM, SIGKILL after `graceMs`; resolves once the process is gone. */
  async terminate(graceMs: number): Promise<void> {
    this.signal("SIGTERM");
    // A paused process would hold SIGTERM pending forever.
    this.signal("SIGCONT");
    if ((await this.exitWithin(graceMs)) === undefined) await this.kill9();
  }
}
