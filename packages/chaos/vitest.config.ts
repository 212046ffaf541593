import { defineProject } from "vitest/config";

// The negative-control test starts a whole chaos stack (sentinel group, two MariaDBs, two
// servers, eight workers) in child processes; the global setup kills servers an earlier,
// interrupted run left behind.
export default defineProject({
  test: {
    name: "chaos",
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ["../testkit/src/vitest-global-setup.ts"],
  },
});
