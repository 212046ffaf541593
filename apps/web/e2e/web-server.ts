import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const WEB_DIR = fileURLToPath(new URL("..", import.meta.url));
const NEXT_BIN = join(WEB_DIR, "node_modules", ".bin", "next");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Runs `next build` unless a build newer than every source file exists. */
export function ensureBuilt(): void {
  const buildId = join(WEB_DIR, ".next", "BUILD_ID");
  const sources = Math.max(
    newestMtime(join(WEB_DIR, "src")),
    statSync(join(WEB_DIR, "next.config.ts")).mtimeMs,
  );
  if (
    existsSync(buildId) &&
    statSync(buildId).mtimeMs > sources &&
    process.env.WARDEN_E2E_REBUILD !== "1"
  )
    return;
  console.log("[e2e] building the console (next build)");
  const result = spawnSync(NEXT_BIN, ["build", "--webpack"], {
    cwd: WEB_DIR,
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (result.status !== 0) throw new Error("e2e: next build failed");
}

/** A `next start` of the console on `port`, proxying /trpc to `apiUrl`. */
export async function startWeb(
  port: number,
  apiUrl: string,
): Promise<{ url: string; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(NEXT_BIN, ["start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: WEB_DIR,
    stdio: ["ignore", "inherit", "inherit"],
    env: {
      ...process.env,
      WARDEN_API_URL: apiUrl,
      NEXT_TELEMETRY_DISABLED: "1",
      PORT: String(port),
    },
  });
  // A test run that dies must not leave a console listening.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`e2e: next start exited with ${child.exitCode}`);
    try {
      const response = await fetch(`${url}/login`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error("e2e: next start did not answer within 60 s");
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    url,
    stop: async () => {
      process.off("exit", killOnExit);
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
