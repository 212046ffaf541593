import { describe, expect, it } from "vitest";
import { parseReadiness, serverOriginOf } from "./readyz";

describe("parseReadiness", () => {
  it("reads the tier of a ready or unready server", () => {
    expect(parseReadiness({ ready: true, tier: "redis" })).toEqual({ ready: true, tier: "redis" });
    expect(parseReadiness({ ready: false, tier: "local" })).toEqual({
      ready: false,
      tier: "local",
    });
  });

  it("never guesses a tier from garbage", () => {
    expect(parseReadiness({ ready: "yes", tier: "postgres" })).toEqual({
      ready: false,
      tier: null,
    });
    expect(parseReadiness(null)).toEqual({ ready: false, tier: null });
  });
});

describe("serverOriginOf", () => {
  it("drops the tRPC path", () => {
    expect(serverOriginOf("http://127.0.0.1:4000/trpc")).toBe("http://127.0.0.1:4000");
  });
});
