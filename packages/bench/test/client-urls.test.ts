import { describe, expect, it } from "vitest";
import { clientUrls } from "../src/variants/sdk.js";

describe("clientUrls", () => {
  it("gives each SDK client its own instance, round-robin", () => {
    expect(clientUrls(["a", "b", "c"], 3)).toEqual(["a", "b", "c"]);
    expect(clientUrls(["a", "b", "c"], 5)).toEqual(["a", "b", "c", "a", "b"]);
    expect(clientUrls(["a"], 3)).toEqual(["a", "a", "a"]);
  });

  it("refuses an empty instance list", () => {
    expect(() => clientUrls([], 3)).toThrow(/no server instance/);
  });
});
