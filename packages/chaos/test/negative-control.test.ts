import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { ChaosReport } from "../src/checker/report.js";

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const RUN_TIMEOUT_MS = 240_000;
let outDir: string | undefined;

afterAll(() => outDir && rm(outDir, { recursive: true, force: true }));

/** Runs `pnpm chaos` as a process, as CI does, and returns its exit code and JSON report. */
async function chaos(args: string[]): Promise<{ code: number; report: ChaosReport }> {
  outDir ??= await mkdtemp(join(tmpdir(), "warden-chaos-test-"));
  const out = join(outDir, `report-${Date.now()}.json`);
  const code = await new Promise<number>((resolve) => {
    const child = execFile(
      process.execPath,
      ["--import", "tsx", MAIN, ...args, "--out", out],
      {
        cwd: fileURLToPath(new URL("..", import.meta.url)),
        timeout: RUN_TIMEOUT_MS,
        maxBuffer: 64 * 1024 * 1024,
      },
      () => undefined,
    );
    child.on("exit", (exitCode) => resolve(exitCode ?? -1));
  });
  return { code, report: JSON.parse(await readFile(out, "utf8")) as ChaosReport };
}

describe("negative control", () => {
  it(
    "fails the lost-update check when workers only check the fence (read-modify-write needs the claim)",
    async () => {
      // Two holders that stop right after their read and resume while the next holder is
      // between its read and its write: a fence-only guard lets both writes through.
      const { code, report } = await chaos([
        "--quick",
        "--seed",
        "3",
        "--guard=fence-only",
        "--only",
        "self-pause-after-read,self-pause-after-read",
      ]);
      expect(code).toBe(1);
      expect(report.guard).toBe("fence-only");
      const lostCheck = report.checks.find((c) => c.name === "no lost update");
      expect(lostCheck?.ok).toBe(false);
      expect(report.faults.reduce((sum, f) => sum + f.lost, 0)).toBeGreaterThan(0);
      // The loss comes from the late writes, not from a broken fence or a stale write.
      expect(report.checks.find((c) => c.name === "no stale write accepted")?.ok).toBe(true);
      expect(report.checks.find((c) => c.name === "fences only grow per account")?.ok).toBe(true);
    },
    RUN_TIMEOUT_MS + 10_000,
  );
});
