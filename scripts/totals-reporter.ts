import type { Reporter, TestModule } from "vitest/node";

/**
 * Prints the plain `N passed, N failed, N skipped` line that CI reads, after vitest's
 * own summary. Counts individual tests; a file that failed to load counts as one failure.
 */
export default class TotalsReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<unknown>,
  ): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const mod of testModules) {
      let seen = 0;
      for (const test of mod.children.allTests()) {
        seen += 1;
        const state = test.result().state;
        if (state === "passed") passed += 1;
        else if (state === "failed") failed += 1;
        else skipped += 1;
      }
      if (seen === 0 && mod.state() === "failed") failed += 1;
    }
    console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
  }
}
