// The published build of @warden/sdk (`pnpm --filter @warden/sdk build`, also run by `prepack`):
// ESM and CommonJS with their declarations, in dist/. Workspace code (@warden/contract and
// @warden/core/local, TypeScript source in private packages) is bundled in, JavaScript and
// types alike, so the tarball depends only on public npm packages; the type-only import of the
// server's router stays out of the public declarations. See
// docs/decisions/0081-sdk-packaging.md.
import { defineConfig } from "tsup";

const workspace = /^@warden\//;
// tRPC's client is bundled too: the SDK uses only its error class at run time, and as a
// dependency it would bring @trpc/server and (its non-optional peer) a whole TypeScript
// compiler into every service that installs the SDK.
const trpc = /^@trpc\//;

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm", "cjs"],
  platform: "node",
  target: "node20",
  outDir: "dist",
  clean: true,
  sourcemap: false,
  splitting: false,
  treeshake: true,
  noExternal: [workspace, trpc],
  external: ["ws", "ioredis", "mysql2"],
  dts: { resolve: ["@warden/contract", "@warden/core"] },
  tsconfig: "tsconfig.build.json",
});
