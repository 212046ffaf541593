import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "sdk",
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    globalSetup: ["../testkit/src/vitest-global-setup.ts"],
    // Fails a file in which any promise rejection went unhandled (background work included).
    setupFiles: ["test/support/no-unhandled-rejections.ts"],
  },
});
