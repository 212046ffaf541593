import { describe, expect, it } from "vitest";
import { canOperate } from "./roles";

describe("canOperate", () => {
  it("lets operators and admins act, and nobody else", () => {
    expect(canOperate("operator")).toBe(true);
    expect(canOperate("admin")).toBe(true);
    expect(canOperate("viewer")).toBe(false);
    expect(canOperate(null)).toBe(false);
    expect(canOperate(undefined)).toBe(false);
  });
});
