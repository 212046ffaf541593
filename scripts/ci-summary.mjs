// Adds up the test counts CI's steps printed and prints the one `N passed, N failed` line
// CI is judged by. Usage: node scripts/ci-summary.mjs <log dir> <step>=<exit code> ...
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const [dir, ...steps] = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;
// Failed tests' names, repeated here because CI shows only the tail of its output.
const failures = [];

for (const step of steps) {
  const [name, code] = step.split("=");
  const logFile = join(dir, `${name}.log`);
  const text = existsSync(logFile) ? readFileSync(logFile, "utf8") : "";
  for (const line of text.matchAll(/^(?:FAILED .*|\s*✖ .*|not ok .*)$/gm))
    failures.push(`${name}: ${line[0].trim()}`);
  // vitest (our totals reporter): "12 passed, 0 failed, 1 skipped"
  const vitest = [...text.matchAll(/^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/gm)].at(-1);
  // node's test runner: "# pass 3" / "# fail 0" (tap) or "ℹ pass 3" / "ℹ fail 0" (spec)
  const nodePass = [...text.matchAll(/^[#ℹ] pass (\d+)$/gm)].at(-1);
  const nodeFail = [...text.matchAll(/^[#ℹ] fail (\d+)$/gm)].at(-1);
  if (vitest) {
    passed += Number(vitest[1]);
    failed += Number(vitest[2]);
    skipped += Number(vitest[3] ?? 0);
    if (code !== "0" && Number(vitest[2]) === 0) failed += 1;
  } else if (nodePass || nodeFail) {
    passed += Number(nodePass?.[1] ?? 0);
    failed += Number(nodeFail?.[1] ?? 0);
    if (code !== "0" && Number(nodeFail?.[1] ?? 0) === 0) failed += 1;
  } else if (code === "0") {
    passed += 1;
  } else {
    failed += 1;
  }
  console.log(`${name.padEnd(10)} exit ${code}`);
}
if (failures.length > 0) console.log(`\n${[...new Set(failures)].slice(0, 40).join("\n")}`);
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
