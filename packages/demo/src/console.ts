import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";

/** A running `next start` of the console. */
export interface ConsoleProcess {
  readonly url: string;
  stop(): Promise<void>;
  /** SIGKILL, at once (a shutdown past its deadline). */
  kill(): void;
}

/**
 * Builds the console through turbo (a cache hit when nothing changed since the last
 * build) and starts it on `port`, proxying /trpc to `apiUrl`.
 */
export async function startConsole(
  root: string,
  port: number,
  apiUrl: string,
  env: NodeJS.ProcessEnv,
): Promise<ConsoleProcess> {
  // Through scripts/turbo.mjs, which puts the workspace's pinned pnpm first on turbo's PATH:
  // `npm start` must work where pnpm is not installed
  // (docs/decisions/0080-pnpm-without-a-global-install.md).
  const build = spawnSync(
    process.execPath,
    [
      join(root, "scripts", "turbo.mjs"),
      "run",
      "build",
      "--filter=@warden/web",
      "--output-logs=errors-only",
    ],
    {
      cwd: root,
      stdio: "inherit",
      env: { ...env, NEXT_TELEMETRY_DISABLED: "1" },
    },
  );
  if (build.status !== 0) throw new Error("building the console failed (see above)");
  const webDir = join(root, "apps", "web");
  const child = spawn(
    join(webDir, "node_modules", ".bin", "next"),
    ["start", "-p", String(port), "-H", "127.0.0.1"],
    {
      cwd: webDir,
      stdio: ["ignore", "ignore", "inherit"],
      env: {
        ...env,
        WARDEN_API_URL: apiUrl,
        NEXT_TELEMETRY_DISABLED: "1",
        PORT: String(port),
      },
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the console exited with code ${child.exitCode}`);
    if (await answers(`${url}/login`)) return { url, stop, kill: () => child.kill("SIGKILL") };
    if (Date.now() > deadline) {
      await stop();
      throw new Error("the console did not answer within 60 s");
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}
