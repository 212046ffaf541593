import { describe, expect, it } from "vitest";
import { codeArea } from "../src/profile/code-area.js";
import type { CpuProfile } from "../src/profile/cpu-profile.js";
import { summarizeProfiles } from "../src/profile/summarize-profile.js";

describe("codeArea", () => {
  it("names npm packages, Warden source directories, node built-ins and V8 frames", () => {
    expect(
      codeArea(
        "file:///r/node_modules/.pnpm/@trpc+server@11/node_modules/@trpc/server/dist/x.mjs",
        "f",
      ),
    ).toBe("@trpc/server");
    expect(
      codeArea("file:///r/node_modules/.pnpm/ioredis@5/node_modules/ioredis/built/a.js", "f"),
    ).toBe("ioredis");
    expect(codeArea("file:///r/packages/core/src/redis/redis-lock-store.ts", "f")).toBe(
      "@warden/core redis",
    );
    expect(codeArea("file:///r/apps/server/src/trpc.ts", "f")).toBe("@warden/server");
    expect(codeArea("node:internal/streams/writable", "f")).toBe("node:streams");
    expect(codeArea("", "(garbage collector)")).toBe("(garbage collector)");
    expect(codeArea("", "writev")).toBe("(native)");
  });
});

describe("summarizeProfiles", () => {
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: { functionName: "(root)", url: "", lineNumber: -1 } },
      { id: 2, callFrame: { functionName: "(idle)", url: "", lineNumber: -1 } },
      {
        id: 3,
        callFrame: {
          functionName: "acquire",
          url: "file:///r/packages/core/src/redis/s.ts",
          lineNumber: 9,
        },
      },
      { id: 4, callFrame: { functionName: "(garbage collector)", url: "", lineNumber: -1 } },
    ],
    startTime: 0,
    endTime: 4_000,
    samples: [3, 2, 3, 4],
    timeDeltas: [0, 1_000, 1_000, 1_000],
  };

  it("charges each sample's interval to the top frame and leaves idle out", () => {
    const summary = summarizeProfiles([profile]);
    expect(summary.busyMs).toBe(3);
    expect(summary.areas[0]).toEqual({ name: "@warden/core redis", selfMs: 2, share: 2 / 3 });
    expect(summary.areas[1]).toEqual({ name: "(garbage collector)", selfMs: 1, share: 1 / 3 });
    expect(summary.functions.map((f) => f.name)).toContain("acquire s.ts:10 [@warden/core redis]");
  });

  it("adds profiles of several slots together", () => {
    expect(summarizeProfiles([profile, profile]).busyMs).toBe(6);
  });
});
