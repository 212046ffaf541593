// Installs the workspace's dependencies from the lockfile when they are missing or older
// than the lockfile (and generates Prisma Client), so `npm test` / `npm start` work straight after `git clone`.
import { execSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const marker = join(root, "node_modules", ".modules.yaml");
const lockfile = join(root, "pnpm-lock.yaml");

const generatedClient = join(root, "packages", "db", "src", "generated", "prisma", "client.ts");
const schema = join(root, "prisma", "schema.prisma");

const pnpm = hasPnpm() ? "pnpm" : "npx --yes pnpm@10.34.8";
const fresh = existsSync(marker) && statSync(marker).mtimeMs >= statSync(lockfile).mtimeMs;
if (!fresh) {
  console.log(`[warden] installing dependencies with ${pnpm} (frozen lockfile)`);
  execSync(`${pnpm} install --frozen-lockfile`, { cwd: root, stdio: "inherit" });
}
// Prisma Client is generated, not committed (docs/decisions/0002).
if (!existsSync(generatedClient) || statSync(generatedClient).mtimeMs < statSync(schema).mtimeMs) {
  console.log("[warden] generating Prisma Client");
  execSync(`${pnpm} db:generate`, { cwd: root, stdio: "inherit" });
}

function hasPnpm() {
  try {
    execSync("pnpm --version", { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
