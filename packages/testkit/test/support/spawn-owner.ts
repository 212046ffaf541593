import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** A process that started a Redis through the testkit, and what it reported. */
export interface Owner {
  readonly process: ChildProcess;
  readonly redisPid: number;
  readonly redisDir: string;
}

const SCRIPT = fileURLToPath(new URL("./owner-process.ts", import.meta.url));

/** Starts {@link SCRIPT} in a separate Node process and waits for its report. */
export async function spawnOwner(mode: "hang" | "exit"): Promise<Owner> {
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT, mode], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout });
  const [line] = (await once(lines, "line")) as [string];
  lines.close();
  const report = JSON.parse(line) as { pid: number; dir: string };
  return { process: child, redisPid: report.pid, redisDir: report.dir };
}
