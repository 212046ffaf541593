import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "server",
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    globalSetup: ["../../packages/testkit/src/vitest-global-setup.ts"],
  },
});
