// `pnpm --filter @warden/server build`: bundles src/main.ts and src/cli.ts into dist/ for
// plain `node`. Workspace packages (@warden/*, TypeScript source) are bundled in; npm
// dependencies stay external and load from node_modules as usual — the server lists the
// ones its workspace packages need (Prisma, cluster-key-slot) so pnpm links them here.
import { build } from "esbuild";
import { cpSync, readFileSync, rmSync } from "node:fs";

const manifest = (path) => JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8"));
const external = new Set();
for (const path of [
  "../package.json",
  "../../../packages/core/package.json",
  "../../../packages/db/package.json",
]) {
  for (const name of Object.keys(manifest(path).dependencies ?? {})) {
    if (!name.startsWith("@warden/")) external.add(name);
  }
}

await build({
  entryPoints: { main: "src/main.ts", cli: "src/cli.ts" },
  outdir: "dist",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  sourcemap: true,
  external: [...external, "@prisma/*"],
  // Bundled CommonJS helpers expect `require`; ESM output has none by default.
  banner: {
    js: "import { createRequire as __wardenRequire } from 'node:module'; const require = __wardenRequire(import.meta.url);",
  },
  logLevel: "info",
});

// `warden-admin migrate` from a deployed copy reads the migrations next to dist/cli.js.
rmSync(new URL("../dist/prisma", import.meta.url), { recursive: true, force: true });
cpSync(
  new URL("../../../prisma/migrations", import.meta.url),
  new URL("../dist/prisma/migrations", import.meta.url),
  { recursive: true },
);
