// Loads a built entry point of the server, or says how to build it when it is missing.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Imports `dist/<entry>`; exits 1 with the build command when the build is missing. */
export async function launch(entry) {
  const url = new URL(`../dist/${entry}`, import.meta.url);
  if (!existsSync(fileURLToPath(url))) {
    console.error(
      `warden: ${fileURLToPath(url)} is missing; build it first: pnpm --filter @warden/server build`,
    );
    process.exit(1);
  }
  await import(url.href);
}
