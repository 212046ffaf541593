import { defineConfig } from "vitest/config";

// One run over every package so the totals line covers the whole workspace. Files run
// one at a time: integration tests start real Redis/MariaDB servers and time failovers,
// and two cores shared by parallel suites would turn timing margins into flakes.
export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*"],
    fileParallelism: false,
    reporters: ["default", "./scripts/totals-reporter.ts"],
  },
});
