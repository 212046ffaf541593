import type { Reporter, TestModule } from "vitest/node";

const root = `${process.cwd()}/`;

/**
 * Prints the plain `N passed, N failed, N skipped` line that CI reads, after vitest's
 * own summary, preceded by one `FAILED <file> > <test>` line per failure (CI shows only the
 * tail of its log, so the names must sit next to the totals). Counts individual tests; a
 * file that failed to load counts as one failure.
 */
export default class TotalsReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<unknown>,
  ): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    const failures: string[] = [];
    for (const mod of testModules) {
      let seen = 0;
      for (const test of mod.children.allTests()) {
        seen += 1;
        const state = test.result().state;
        if (state === "passed") passed += 1;
        else if (state === "failed") {
          failed += 1;
          failures.push(`FAILED ${mod.moduleId.replace(root, "")} > ${test.fullName}`);
        } else skipped += 1;
      }
      if (seen === 0 && mod.state() === "failed") {
        failed += 1;
        failures.push(`FAILED ${mod.moduleId.replace(root, "")} (did not load)`);
      }
    }
    if (failures.length > 0) console.log(`\n${failures.join("\n")}`);
    console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
  }
}
