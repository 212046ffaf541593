import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));

/** A TypeScript fixture in its own Node process, with its output collected line by line. */
export interface Child {
  readonly process: ChildProcess;
  /** Every stdout line so far. */
  readonly lines: string[];
  /** Resolves with the first line matching `pattern`. */
  line(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code (or signal) and when it exited (performance.now()). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** Runs `test/fixtures/<name>.ts` with tsx. */
export function runFixture(name: string, args: string[]): Child {
  const fixture = fileURLToPath(new URL(`../fixtures/${name}.ts`, import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", fixture, ...args], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let buffer = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    const parts = buffer.split("\n");
    buffer = parts.pop() ?? "";
    lines.push(...parts);
    for (const wake of [...waiters]) wake();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>(
    (resolve) =>
      child.once("exit", (code, signal) => {
        for (const wake of [...waiters]) wake();
        resolve({ code, signal, at: performance.now() });
      }),
  );
  return {
    process: child,
    lines,
    exited,
    line(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find((line) => pattern.test(line));
          if (found !== undefined) {
            done();
            resolve(found);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(new Error(`${name} exited without printing ${pattern}; stderr:\n${stderr}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(
            new Error(
              `${name} did not print ${pattern} within ${timeoutMs} ms; stderr:\n${stderr}`,
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
