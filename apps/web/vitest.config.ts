import { defineProject } from "vitest/config";

export default defineProject({
  // tsconfig keeps JSX for Next (`preserve`); tests that render a component need it compiled.
  oxc: { jsx: { runtime: "automatic" } },
  test: {
    name: "web",
    include: ["src/**/*.test.ts"],
  },
});
