import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const WORKER_MAIN = fileURLToPath(new URL("../worker/worker-main.ts", import.meta.url));

/**
 * Bundles the worker (with the SDK and its dependencies) into one ES module in `outfile`.
 * Eight workers each loading ~150 TypeScript modules through tsx took ~15 s of CPU on
 * this two-core machine before the first lock; the bundle starts in ~0.4 s, which keeps
 * worker restarts (after a kill -9) and the whole quick run short.
 */
export async function bundleWorker(outfile: string): Promise<string> {
  await build({
    entryPoints: [WORKER_MAIN],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    // Bundled CommonJS dependencies (mysql2, ws) still call require() for Node built-ins.
    banner: {
      js: "import { createRequire as chaosCreateRequire } from 'node:module'; const require = chaosCreateRequire(import.meta.url);",
    },
    // Optional native speed-ups of ws, absent here; ws falls back without them.
    external: ["bufferutil", "utf-8-validate"],
    logLevel: "warning",
  });
  return outfile;
}
