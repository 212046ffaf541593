import { defineProject } from "vitest/config";

// Real servers start in hooks (a sentinel group needs ~3 s to discover itself) and
// failovers take ~2.5 s each, hence the long timeouts. The global setup kills servers
// a crashed worker left behind.
export default defineProject({
  test: {
    name: "testkit",
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ["./src/vitest-global-setup.ts"],
  },
});
