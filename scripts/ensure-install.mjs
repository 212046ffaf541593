// Installs the workspace's dependencies from the lockfile when they are missing or older
// than the lockfile (and generates Prisma Client), so `npm test` / `npm start` work straight
// after `git clone` on a machine with only Node and npm.
//
// pnpm is never taken from the machine's PATH: it is a pinned root devDependency
// (docs/decisions/0080-pnpm-without-a-global-install.md). The first install runs that same
// version through `npx`; every later pnpm call (here, in the root scripts, in the demo and in
// turbo's tasks) uses node_modules/.bin/pnpm, which npm and pnpm put first on a script's PATH.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const marker = join(root, "node_modules", ".modules.yaml");
const lockfile = join(root, "pnpm-lock.yaml");
const localPnpm = join(root, "node_modules", "pnpm", "bin", "pnpm.cjs");

const generatedClient = join(root, "packages", "db", "src", "generated", "prisma", "client.ts");
const schema = join(root, "prisma", "schema.prisma");

const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const pinned = /^pnpm@(\d+\.\d+\.\d+)$/.exec(manifest.packageManager ?? "")?.[1];
if (!pinned) throw new Error('package.json: "packageManager" must be "pnpm@<x.y.z>"');

const fresh =
  existsSync(marker) &&
  existsSync(localPnpm) &&
  statSync(marker).mtimeMs >= statSync(lockfile).mtimeMs;
if (!fresh) {
  if (existsSync(localPnpm)) {
    console.log(`[warden] installing dependencies (frozen lockfile)`);
    pnpm(["install", "--frozen-lockfile"]);
  } else {
    console.log(`[warden] installing dependencies with npx pnpm@${pinned} (frozen lockfile)`);
    execFileSync("npx", ["--yes", `pnpm@${pinned}`, "install", "--frozen-lockfile"], {
      cwd: root,
      stdio: "inherit",
    });
  }
}
// Prisma Client is generated, not committed (docs/decisions/0002).
if (!existsSync(generatedClient) || statSync(generatedClient).mtimeMs < statSync(schema).mtimeMs) {
  console.log("[warden] generating Prisma Client");
  pnpm(["db:generate"]);
}

/** Runs the workspace's own pnpm (node_modules/pnpm), whatever is on PATH. */
function pnpm(args) {
  execFileSync(process.execPath, [localPnpm, ...args], { cwd: root, stdio: "inherit" });
}
