import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const bin = fileURLToPath(new URL("../../bin/warden.mjs", import.meta.url));

/** A `warden` process started from bin/warden.mjs, its output collected line by line. */
export interface Cli {
  readonly process: ChildProcess;
  readonly out: string[];
  readonly err: string[];
  /** Resolves with the first stdout line matching `pattern`. */
  line(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code (or signal) and when it exited (performance.now()). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** Starts `warden <args>` with exactly `env` (plus PATH and HOME). */
export function startCli(args: string[], env: Record<string, string>): Cli {
  const child = spawn(process.execPath, [bin, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...env },
  });
  const out: string[] = [];
  const err: string[] = [];
  const waiters = new Set<() => void>();
  const collect = (stream: NodeJS.ReadableStream, into: string[]) => {
    let buffer = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      buffer += chunk;
      const parts = buffer.split("\n");
      buffer = parts.pop() ?? "";
      into.push(...parts);
      for (const wake of [...waiters]) wake();
    });
  };
  collect(child.stdout, out);
  collect(child.stderr, err);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>(
    (resolve) =>
      child.once("close", (code, signal) => {
        for (const wake of [...waiters]) wake();
        resolve({ code, signal, at: performance.now() });
      }),
  );
  return {
    process: child,
    out,
    err,
    exited,
    line(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = out.find((line) => pattern.test(line));
          if (found !== undefined) {
            done();
            resolve(found);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(
              new Error(
                `warden ${args.join(" ")} exited without printing ${pattern}; stdout:\n${out.join("\n")}\nstderr:\n${err.join("\n")}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(
            new Error(
              `warden did not print ${pattern} within ${timeoutMs} ms; stderr:\n${err.join("\n")}`,
            ),
          );
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** Runs `warden <args>` to the end. */
export async function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string[]; err: string[] }> {
  const cli = startCli(args, env);
  const { code } = await cli.exited;
  return { code, out: cli.out, err: cli.err };
}

/** True while a process with this pid runs (a zombie nobody reaped yet counts as dead). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}
