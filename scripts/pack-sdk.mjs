// `npm run sdk:pack`: builds and packs @warden/sdk into .warden/pack/ with the workspace's
// pinned pnpm (docs/decisions/0080; only pnpm applies the package's publishConfig,
// docs/decisions/0081), then prints the tarball's path for `npm install <path>`.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const destination = join(root, ".warden", "pack");
mkdirSync(destination, { recursive: true });
const pnpm = join(root, "node_modules", "pnpm", "bin", "pnpm.cjs");
execFileSync(
  process.execPath,
  [pnpm, "--filter", "@warden/sdk", "pack", "--pack-destination", destination],
  { cwd: root, stdio: ["ignore", "ignore", "inherit"] },
);
const tarball = readdirSync(destination)
  .filter((name) => name.startsWith("warden-sdk-") && name.endsWith(".tgz"))
  .sort()
  .at(-1);
if (!tarball) throw new Error(`no SDK tarball in ${destination}`);
console.log(`[warden] SDK packed: ${join(destination, tarball)}`);
console.log(`[warden] in your service: npm install ${join(destination, tarball)}`);
