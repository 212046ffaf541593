import { spawn, type ChildProcess } from "node:child_process";
import { constants } from "node:os";
import {
  createWarden,
  LeaseLostError,
  LockTimeoutError,
  type Lock,
  type Warden,
} from "@warden/sdk";
import type { Connection, LockCommand } from "./args.js";
import type { Output } from "./admin-commands.js";
import { formatMs } from "./duration.js";
import { CliError, EXIT, exitCodeOf } from "./exit-codes.js";

/** Signals `warden lock` passes on to the command (to its whole process group). */
export const FORWARDED_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"] as const;
type Forwarded = (typeof FORWARDED_SIGNALS)[number];

/** What {@link runLocked} takes from its process. */
export interface LockedProcess {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly io: Output;
  /** Registers a handler for a signal this process receives; returns its removal. */
  onSignal(signal: Forwarded, handler: () => void): () => void;
}

function signalExit(signal: NodeJS.Signals | null): number {
  const number = signal === null ? undefined : constants.signals[signal];
  return number === undefined ? EXIT.internal : 128 + number;
}

/**
 * `warden lock`: acquires the lock (trying once, or waiting up to `waitMs`), runs the
 * command in its own process group with the lock's facts in its environment while the
 * SDK's watchdog renews the lease, and releases when the command exits. Resolves with the
 * exit code: the command's status, or one of {@link EXIT}'s.
 */
export async function runLocked(
  cmd: LockCommand,
  connection: Connection,
  proc: LockedProcess,
): Promise<number> {
  const { io } = proc;
  if (connection.url === undefined)
    throw new CliError(EXIT.usage, "no server: set WARDEN_URL or pass --url");
  if (connection.apiKey === undefined) {
    throw new CliError(
      EXIT.usage,
      "warden lock needs the tenant's API key: set WARDEN_API_KEY or pass --api-key",
    );
  }
  const warden = createWarden({
    url: connection.url,
    apiKey: connection.apiKey,
    ...(connection.clientId === undefined ? {} : { clientId: connection.clientId }),
    // An in-process lock would exclude nothing: every `warden lock` is its own process.
    localFallback: false,
    onError: (error, context) => io.err(`warden: ${context}: ${messageOf(error)}`),
  });
  try {
    const lock = await acquire(warden, cmd, proc);
    if (typeof lock === "number") return lock;
    return await runWhileHeld(lock, cmd, proc);
  } finally {
    await warden.close();
  }
}

/** The lock, or the exit code when it was not acquired. */
async function acquire(
  warden: Warden,
  cmd: LockCommand,
  proc: LockedProcess,
): Promise<Lock | number> {
  const { io } = proc;
  const notAcquired = cmd.conflictExitCode ?? EXIT.notAcquired;
  const options = cmd.leaseMs === undefined ? {} : { leaseMs: cmd.leaseMs };
  // A signal while waiting withdraws the wait and ends warden with 128+n.
  const gaveUp = new AbortController();
  let received: Forwarded | null = null;
  const removals = FORWARDED_SIGNALS.map((signal) =>
    proc.onSignal(signal, () => {
      received ??= signal;
      gaveUp.abort(new CliError(signalExit(signal), `interrupted by ${signal} while waiting`));
    }),
  );
  try {
    const lock =
      cmd.waitMs === 0
        ? await warden.tryAcquire(cmd.resource, cmd.businessKey, options)
        : await warden.acquire(cmd.resource, cmd.businessKey, {
            ...options,
            waitMs: cmd.waitMs,
            signal: gaveUp.signal,
          });
    if (lock === null) {
      io.err(
        `warden: ${cmd.resource} ${cmd.businessKey} is held${await holderOf(warden, cmd)}: not acquired`,
      );
      return notAcquired;
    }
    if (received !== null) {
      await lock.release();
      return signalExit(received);
    }
    return lock;
  } catch (error) {
    if (error instanceof LockTimeoutError) {
      io.err(
        `warden: ${cmd.resource} ${cmd.businessKey} still held${await holderOf(warden, cmd)} after ${formatMs(cmd.waitMs)}: not acquired`,
      );
      return notAcquired;
    }
    if (received !== null) return signalExit(received);
    io.err(`warden: ${cmd.resource} ${cmd.businessKey}: ${messageOf(error)}`);
    return exitCodeOf(error);
  } finally {
    for (const remove of removals) remove();
  }
}

/** ` by <clientId> (fence …, <ttl> left)`, or nothing when that cannot be told. */
async function holderOf(warden: Warden, cmd: LockCommand): Promise<string> {
  try {
    const lease = await warden.inspect(cmd.resource, cmd.businessKey);
    return lease === null
      ? ""
      : ` by ${lease.holder.clientId} (fence ${lease.fence ?? "-"}, ${formatMs(Math.max(0, lease.ttlMs))} left)`;
  } catch {
    return "";
  }
}

function runWhileHeld(lock: Lock, cmd: LockCommand, proc: LockedProcess): Promise<number> {
  const { io } = proc;
  const [file, ...args] = cmd.command;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(proc.env)) if (value !== undefined) env[name] = value;
  Object.assign(env, {
    WARDEN_FENCE: lock.fence ?? "",
    WARDEN_LOCK_ID: lock.lockId,
    WARDEN_RESOURCE: lock.resource,
    WARDEN_KEY: lock.businessKey,
    WARDEN_TIER: lock.tier,
  });
  return new Promise<number>((resolve) => {
    let child: ChildProcess;
    let lost: LeaseLostError | null = null;
    let killTimer: NodeJS.Timeout | undefined;
    const removals: (() => void)[] = [];

    // The command runs in its own process group: a shell's children get its signals too.
    // The group outlives its leader while any member runs (the id is not reused meanwhile).
    const signalGroup = (signal: NodeJS.Signals | 0): boolean => {
      if (child.pid === undefined) return false;
      try {
        process.kill(-child.pid, signal);
        return true;
      } catch {
        return false;
      }
    };
    let killAt = 0;
    let finished = false;
    const finish = async (code: number) => {
      if (finished) return;
      finished = true;
      clearTimeout(killTimer);
      lock.signal.removeEventListener("abort", onLost);
      for (const remove of removals) remove();
      await lock.release();
      resolve(code);
    };
    const onLost = () => {
      const reason: unknown = lock.signal.reason;
      lost =
        reason instanceof LeaseLostError ? reason : new LeaseLostError(lock.lockId, "lease lost");
      io.err(
        `warden: lost the lock on ${cmd.resource} ${cmd.businessKey} (${lost.message}); ` +
          `stopping the command: SIGTERM, SIGKILL after ${formatMs(cmd.killAfterMs)}`,
      );
      signalGroup("SIGTERM");
      killAt = performance.now() + cmd.killAfterMs;
      killTimer = setTimeout(() => signalGroup("SIGKILL"), cmd.killAfterMs);
    };

    try {
      child = spawn(file!, args, { stdio: "inherit", env, detached: true });
    } catch (error) {
      io.err(`warden: cannot run ${file}: ${messageOf(error)}`);
      void finish(EXIT.cannotExecute);
      return;
    }
    child.once("error", (error: NodeJS.ErrnoException) => {
      // Only spawn failures arrive before "spawn"; the command never ran.
      if (child.pid !== undefined) return;
      io.err(`warden: cannot run ${file}: ${error.message}`);
      void finish(error.code === "ENOENT" ? EXIT.notFound : EXIT.cannotExecute);
    });
    child.once("exit", (code, signal) => {
      if (lost === null) {
        void finish(code ?? signalExit(signal));
        return;
      }
      // Without the lock, nothing of the command may keep running: what is left of its
      // group gets the rest of --kill-after, then SIGKILL.
      const sweep = () => {
        if (signalGroup(0) && performance.now() < killAt) {
          setTimeout(sweep, 50);
          return;
        }
        signalGroup("SIGKILL");
        void finish(EXIT.leaseLost);
      };
      sweep();
    });
    for (const signal of FORWARDED_SIGNALS) {
      removals.push(proc.onSignal(signal, () => signalGroup(signal)));
    }
    if (lock.signal.aborted) onLost();
    else lock.signal.addEventListener("abort", onLost, { once: true });
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
