// Runs the workspace's turbo with the workspace's pinned pnpm first on PATH, by absolute path.
//
// turbo runs every task through `pnpm run`, looking `pnpm` up on PATH. Under `pnpm run`, PATH
// starts with the *relative* entry `./node_modules/.bin`; at the repository root that holds
// the pinned pnpm (a root devDependency, docs/decisions/0080-pnpm-without-a-global-install.md),
// so turbo would resolve `./node_modules/.bin/pnpm` and then fail to spawn it from each
// package's directory ("unable to spawn child process: No such file or directory"). Every
// relative entry is made absolute here, and root's node_modules/.bin goes first, so turbo
// always finds the pinned pnpm, under npm, under pnpm, and with no pnpm installed at all.
import { spawn } from "node:child_process";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = join(root, "node_modules", ".bin");
const path = [
  bin,
  ...(process.env.PATH ?? "")
    .split(delimiter)
    .filter((entry) => entry !== "")
    .map((entry) => (isAbsolute(entry) ? entry : resolve(process.cwd(), entry))),
];

const child = spawn(join(bin, "turbo"), process.argv.slice(2), {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, PATH: [...new Set(path)].join(delimiter) },
});
// The terminal's Ctrl-C reaches turbo directly (same process group); a signal sent to this
// process alone is passed on.
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
});
