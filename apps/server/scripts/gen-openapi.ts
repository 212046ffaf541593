/**
 * Writes the HTTP/JSON lock API's OpenAPI document to docs/openapi.json (what the server
 * serves at /openapi.json), formatted like the rest of the repository; `--check` exits 1
 * when the checked-in file differs instead of writing it.
 *
 *   pnpm --filter @warden/server exec tsx scripts/gen-openapi.ts [--check]
 */
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import * as prettier from "prettier";
import { openApiDocument } from "../src/rest/openapi.js";

const target = fileURLToPath(new URL("../../../docs/openapi.json", import.meta.url));
const options = (await prettier.resolveConfig(target)) ?? {};
const text = await prettier.format(JSON.stringify(openApiDocument()), {
  ...options,
  filepath: target,
});
if (process.argv.includes("--check")) {
  const current = await readFile(target, "utf8").catch(() => "");
  if (current !== text) {
    console.error(`${target} is out of date: run scripts/gen-openapi.ts`);
    process.exit(1);
  }
  console.log(`${target} is up to date`);
} else {
  await writeFile(target, text);
  console.log(`wrote ${target}`);
}
