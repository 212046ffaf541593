import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "ops",
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ["../testkit/src/vitest-global-setup.ts"],
  },
});
