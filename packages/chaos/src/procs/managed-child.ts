import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";

/** How to start one TypeScript process of the run. */
export interface ChildSpec {
  /** `server`, `worker`, `proxy`: used in the leftover check and in messages. */
  readonly role: string;
  readonly id: string;
  /** Absolute path of the entry: a `.ts` file run through tsx, or a bundled `.mjs`. */
  readonly entry: string;
  /** Extra preload modules (absolute `.ts` paths), loaded after tsx and the parent watch. */
  readonly preloads?: readonly string[];
  /** Node flags before the imports, e.g. the server's `SERVER_NODE_FLAGS`. */
  readonly nodeFlags?: readonly string[];
  /** Variables on top of a minimal base environment (PATH, HOME, locale, temp dir). */
  readonly env: Readonly<Record<string, string>>;
  /** stderr, and stdout unless `onLine` takes it, appended here. */
  readonly logPath: string;
  /** Receives stdout line by line. */
  readonly onLine?: (line: string) => void;
  /** Opens an IPC channel (for `send`). */
  readonly ipc?: boolean;
  readonly cwd?: string;
}

/** The life of one child: its exit code or the signal that ended it. */
export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

const TSX_LOADER = import.meta.resolve("tsx");
const PARENT_WATCH = fileURLToPath(new URL("./preload/parent-watch.ts", import.meta.url));
const BASE_ENV_KEYS = ["PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "TZ", "USER"];

/** Every child this process started, for the exit hook and the leftover check. */
const everyChild = new Set<ManagedChild>();
const startedPids: { role: string; id: string; pid: number }[] = [];
let hooksInstalled = false;

function killAllSync(): void {
  for (const child of everyChild) child.killSync();
}

/**
 * A Node process running a TypeScript entry through tsx's loader in-process (`node
 * --import tsx entry.ts`, not the `tsx` CLI, whose extra parent process would survive a
 * SIGKILL aimed at the server and hide a SIGSTOP from it), or a bundled `.mjs`.
 */
export class ManagedChild {
  readonly pid: number;
  /** Resolves when the process has exited (and was reaped). */
  readonly exited: Promise<ChildExit>;
  private readonly child: ChildProcess;
  private readonly log: WriteStream;
  private exitInfo: ChildExit | null = null;

  private constructor(readonly spec: ChildSpec) {
    installExitHooks();
    this.log = createWriteStream(spec.logPath, { flags: "a" });
    // A bundle carries its own parent watch; TypeScript entries get tsx and the watch.
    const imports = spec.entry.endsWith(".ts")
      ? [
          TSX_LOADER,
          pathToFileURL(PARENT_WATCH).href,
          ...(spec.preloads ?? []).map((p) => pathToFileURL(p).href),
        ]
      : [];
    const baseEnv = Object.fromEntries(
      BASE_ENV_KEYS.flatMap((key) =>
        process.env[key] === undefined ? [] : [[key, process.env[key]]],
      ),
    );
    this.child = spawn(
      process.execPath,
      [...(spec.nodeFlags ?? []), ...imports.flatMap((url) => ["--import", url]), spec.entry],
      {
        env: { ...baseEnv, ...spec.env },
        cwd: spec.cwd,
        stdio: ["ignore", "pipe", "pipe", ...(spec.ipc ? (["ipc"] as const) : [])],
      },
    );
    if (this.child.pid === undefined) throw new Error(`could not start ${spec.role} ${spec.id}`);
    this.pid = this.child.pid;
    startedPids.push({ role: spec.role, id: spec.id, pid: this.pid });
    everyChild.add(this);
    this.child.stderr!.pipe(this.log, { end: false });
    if (spec.onLine) {
      const onLine = spec.onLine;
      createInterface({ input: this.child.stdout!, crlfDelay: Infinity }).on("line", (line) =>
        onLine(line),
      );
    } else {
      this.child.stdout!.pipe(this.log, { end: false });
    }
    // An IPC channel to a dead child fails its writes with EPIPE: the exit is what matters.
    this.child.on("error", () => undefined);
    this.exited = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        this.exitInfo = { code, signal };
        everyChild.delete(this);
        resolve(this.exitInfo);
      });
    });
  }

  /** Starts `spec` and resolves once the process exists. */
  static async start(spec: ChildSpec): Promise<ManagedChild> {
    const child = new ManagedChild(spec);
    await new Promise<void>((resolve, reject) => {
      child.child.once("spawn", resolve);
      child.child.once("error", reject);
    });
    return child;
  }

  get running(): boolean {
    return this.exitInfo === null;
  }

  /** Sends a signal if the process still runs. */
  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /** SIGKILL and wait until the process is gone. */
  async kill9(): Promise<ChildExit> {
    this.signal("SIGKILL");
    return this.exited;
  }

  /** SIGTERM (after SIGCONT, in case it is paused), SIGKILL after `graceMs`. */
  async terminate(graceMs: number): Promise<ChildExit> {
    if (!this.running) return this.exited;
    this.signal("SIGCONT");
    this.signal("SIGTERM");
    const timer = setTimeout(() => this.signal("SIGKILL"), graceMs);
    const exit = await this.exited;
    clearTimeout(timer);
    this.log.end();
    return exit;
  }

  /** Sends an IPC message; false when the channel is gone. */
  send(message: unknown): boolean {
    if (!this.running || !this.child.connected) return false;
    return this.child.send(message as object);
  }

  /** The IPC channel's events (`message`); only with `ipc: true`. */
  channel(): NodeJS.EventEmitter {
    return this.child;
  }

  /** For the exit hook: SIGKILL now, no waiting. */
  killSync(): void {
    try {
      this.child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** Kills every child on exit and on fatal signals, so none outlives this process. */
function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.once("exit", killAllSync);
}

/** Every child ever started here, with its role and id. */
export function startedChildren(): readonly { role: string; id: string; pid: number }[] {
  return startedPids;
}

/** Children that still run (should be none after teardown). */
export function runningChildren(): ManagedChild[] {
  return [...everyChild];
}

/** SIGKILLs every child at once: the second Ctrl-C. */
export function killAllChildren(): void {
  killAllSync();
}
