import { defineProject } from "vitest/config";

// Only the pure parts are tested here (percentiles, schedule, table, JSON shape); the
// bench itself runs real servers and is exercised by `pnpm bench --quick` in CI.
export default defineProject({ test: { name: "bench", include: ["test/**/*.test.ts"] } });
