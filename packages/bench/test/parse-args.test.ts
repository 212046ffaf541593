import { describe, expect, it } from "vitest";
import { parseBenchArgs } from "../src/cli/parse-args.js";

describe("parseBenchArgs", () => {
  it("defaults to the full run", () => {
    expect(parseBenchArgs([])).toEqual({
      quick: false,
      out: null,
      profile: false,
      variants: null,
      help: false,
    });
  });

  it("reads --quick, --out, --profile and --variants, ignoring pnpm's literal --", () => {
    expect(
      parseBenchArgs([
        "--",
        "--quick",
        "--out",
        "r.json",
        "--profile",
        "--variants",
        "sdk,raw-mysql",
      ]),
    ).toEqual({
      quick: true,
      out: "r.json",
      profile: true,
      variants: ["sdk", "raw-mysql"],
      help: false,
    });
  });

  it("refuses unknown flags and variants", () => {
    expect(() => parseBenchArgs(["--fast"])).toThrow();
    expect(() => parseBenchArgs(["--variants", "sdk,etcd"])).toThrow(/unknown variant "etcd"/);
  });
});
