import { defineProject } from "vitest/config";

// The global setup finds (or starts) the MariaDB the tests create their databases on.
export default defineProject({
  test: {
    name: "db",
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ["../testkit/src/vitest-global-setup.ts"],
  },
});
