// `prepack` of @warden/sdk: builds dist/ before the tarball is made. Packs only with pnpm
// (`pnpm --filter @warden/sdk pack`): pnpm writes the `publishConfig` exports (the built files)
// into the packed package.json, npm does not, and a tarball whose exports point at TypeScript
// source would install but not load (docs/decisions/0081-sdk-packaging.md).
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const agent = process.env.npm_config_user_agent ?? "";
if (!agent.startsWith("pnpm/")) {
  console.error(
    "@warden/sdk: pack it with pnpm (`pnpm --filter @warden/sdk pack`), not npm: only pnpm " +
      "applies publishConfig, which points the package's exports at the built dist/ files.",
  );
  process.exit(1);
}
const sdk = join(dirname(fileURLToPath(import.meta.url)), "..");
execFileSync(join(sdk, "node_modules", ".bin", "tsup"), [], { cwd: sdk, stdio: "inherit" });
