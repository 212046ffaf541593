// `pnpm bench [--quick] [--out FILE] [--variants …] [--profile]`: see ../README.md and
// docs/decisions/0040. Prints a Markdown report and writes the JSON results.
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseBenchArgs, USAGE, type BenchArgs } from "./cli/parse-args.js";
import { loadBenchEnv } from "./env.js";
import { readRevision } from "./infra/revision.js";
import { planFor } from "./plan/bench-plan.js";
import { formatProfile } from "./profile/format-profile.js";
import { benchJson } from "./report/bench-report.js";
import { markdownReport } from "./report/markdown-report.js";
import { runBench } from "./run/run-bench.js";

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** Aborted by the first SIGINT/SIGTERM: the run stops between slots and cleans up. */
const controller = new AbortController();

function log(line: string): void {
  console.error(`${new Date().toISOString().slice(11, 19)} ${line}`);
}

function commandLine(args: BenchArgs): string {
  return [
    "pnpm bench",
    ...(args.quick ? ["--quick"] : []),
    ...(args.variants ? [`--variants ${args.variants.join(",")}`] : []),
    ...(args.profile ? ["--profile"] : []),
  ].join(" ");
}

async function main(): Promise<number> {
  let args: BenchArgs;
  try {
    args = parseBenchArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const env = loadBenchEnv();
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const out = args.out
    ? resolve(env.invokedFrom, args.out)
    : join(REPO_ROOT, ".warden/bench/latest.json");
  const profileDir = args.profile ? join(REPO_ROOT, ".warden/bench/profiles", stamp) : null;

  let interrupts = 0;
  const interrupt = (signal: NodeJS.Signals) => {
    interrupts += 1;
    // A second Ctrl-C while cleaning up: leave now; forked children exit with our IPC
    // channel and the next run reaps the servers.
    if (interrupts > 1) process.exit(130);
    log(`${signal}: stopping after the current slot`);
    controller.abort(new Error(`interrupted by ${signal}`));
  };
  process.on("SIGINT", interrupt);
  process.on("SIGTERM", interrupt);

  const report = await runBench({
    plan: planFor({ quick: args.quick, variants: args.variants }),
    env,
    command: commandLine(args),
    revision: readRevision(REPO_ROOT),
    profileDir,
    signal: controller.signal,
    log,
  });
  console.log(markdownReport(report));
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(benchJson(report), null, 2)}\n`);
  log(`JSON written to ${out}`);
  for (const { variant, process: role, summary } of report.profiles) {
    const during = variant === "memory-renewals" ? "the renewal window" : "the measured slots";
    console.log(formatProfile(`${variant}: ${role} CPU during ${during}`, summary));
  }
  if (profileDir !== null) log(`.cpuprofile files in ${profileDir}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (controller.signal.aborted) {
      // Ctrl-C also reaches the children, so what fails first is usually one of them.
      log(
        `${String((controller.signal.reason as Error).message)}: everything it started is stopped`,
      );
      process.exit(130);
    }
    log(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
