import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));

export const RULES = `${repoRoot}deploy/prometheus/warden-rules.yml`;
export const RULES_TEST = `${repoRoot}deploy/prometheus/warden-rules.test.yml`;
export const PROMETHEUS_EXAMPLE = `${repoRoot}deploy/prometheus/prometheus.example.yml`;
export const DASHBOARD = `${repoRoot}deploy/grafana/warden-dashboard.json`;

/** What a finished command printed and how it ended. */
export interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `file args` and resolves however it ends (a missing binary rejects). */
export function run(file: string, args: string[], cwd = repoRoot): Promise<Ran> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code === "string") {
        reject(
          new Error(
            `${file} could not run (${error.code}): install Debian's prometheus package ` +
              `(npm test does it as root via scripts/ensure-system.mjs)`,
          ),
        );
        return;
      }
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}
