/**
 * `pnpm chaos`: a fenced ledger under faults (issue 9). Prints the JSON report on stdout
 * (progress on stderr) and exits 0 only when every check holds. Ctrl-C stops the run and
 * tears everything down; a second Ctrl-C kills every process at once.
 */
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { killAllChildren } from "./procs/managed-child.js";
import { checkRunDir } from "./run/check-run-dir.js";
import { parseChaosArgs, USAGE, type ChaosArgs } from "./run/parse-args.js";
import { renderReport } from "./run/render-report.js";
import { runChaos } from "./run/run-chaos.js";

// Under the repository's .warden/ (git- and lint-ignored): events, logs, the final state.
const RUNS_DIR = fileURLToPath(new URL("../../../.warden/chaos-runs", import.meta.url));
// pnpm runs the script in packages/chaos; paths on the command line mean the caller's cwd.
const callerPath = (path: string) => resolve(process.env.INIT_CWD ?? process.cwd(), path);

let args: ChaosArgs;
try {
  // `pnpm chaos -- …` and the root script's own `--` reach us as a leading "--".
  const argv = process.argv.slice(2);
  args = parseChaosArgs(argv[0] === "--" ? argv.slice(1) : argv);
} catch (error) {
  const message = (error as Error).message;
  console.error(message === "help" ? USAGE : `${message}\n${USAGE}`);
  process.exit(message === "help" ? 0 : 2);
}

const stop = new AbortController();
// One Ctrl-C reaches us twice (from the terminal's process group and relayed by tsx):
// only a signal well after the first one means "kill everything now".
const SECOND_SIGNAL_AFTER_MS = 2_000;
let firstSignalAt = 0;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stop.signal.aborted) {
      if (performance.now() - firstSignalAt < SECOND_SIGNAL_AFTER_MS) return;
      killAllChildren();
      process.exit(130);
    }
    firstSignalAt = performance.now();
    console.error(`[chaos] ${signal}: stopping the run and tearing down (again to kill at once)`);
    stop.abort();
  });
}

const started = performance.now();
const progress = (message: string) =>
  console.error(
    `[chaos ${((performance.now() - started) / 1_000).toFixed(1).padStart(6)} s] ${message}`,
  );

const { report, runDir } = args.check
  ? { report: await checkRunDir(callerPath(args.check)), runDir: callerPath(args.check) }
  : await runChaos({
      seed: args.seed,
      mode: args.mode,
      guard: args.guard,
      redis: args.redis,
      waitReplicas: args.waitReplicas,
      ...(args.only ? { only: args.only } : {}),
      runsDir: RUNS_DIR,
      signal: stop.signal,
      progress,
    });
const json = JSON.stringify(report, null, 2);
if (args.out) await writeFile(callerPath(args.out), `${json}\n`);
console.log(json);
console.error(renderReport(report));
progress(`${report.ok ? "PASSED" : "FAILED"} (seed ${report.seed}, ${runDir})`);
process.exit(report.ok ? 0 : 1);
