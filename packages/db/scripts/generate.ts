// `pnpm db:generate`: generates Prisma Client into src/generated/prisma (git-ignored).
// The generator needs no schema engine, but the CLI insists on finding one first; a
// stand-in that fails loudly if it is ever run satisfies it (docs/decisions/0002).
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(
  dirname(createRequire(import.meta.url).resolve("prisma/package.json")),
  "build",
  "index.js",
);
const result = spawnSync(process.execPath, [cli, "generate", ...process.argv.slice(2)], {
  cwd: join(here, ".."),
  stdio: "inherit",
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY:
      process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? join(here, "no-schema-engine.sh"),
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
  },
});
process.exit(result.status ?? 1);
