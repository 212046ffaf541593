import { describe, expect, it } from "vitest";
import {
  compareSeverity,
  localAlertMode,
  tierPeriodKey,
  tierStyle,
  worstSeverity,
} from "./tier-style";

describe("tierStyle", () => {
  it("gives every tier its own tone and a severity that grows with the damage", () => {
    expect(tierStyle("redis")).toMatchObject({ tone: "green", severity: "ok" });
    expect(tierStyle("mysql")).toMatchObject({ tone: "amber", severity: "warning" });
    expect(tierStyle("local")).toMatchObject({ tone: "red", severity: "critical" });
  });
});

describe("severity order", () => {
  it("sorts worst first and finds the worst", () => {
    const sorted = (["info", "critical", "ok", "warning"] as const).slice().sort(compareSeverity);
    expect(sorted).toEqual(["critical", "warning", "info", "ok"]);
    expect(worstSeverity(["info", "warning"])).toBe("warning");
    expect(worstSeverity([])).toBe("ok");
  });
});

describe("localAlertMode", () => {
  it("shows nothing outside local mode, even with an old acknowledgement", () => {
    expect(localAlertMode("redis", "4@1", "3@1")).toBe("none");
    expect(localAlertMode("mysql", "4@1", null)).toBe("none");
    expect(localAlertMode(undefined, undefined, null)).toBe("none");
  });

  it("takes the whole screen until this local period is acknowledged, then a banner", () => {
    const key = tierPeriodKey({ version: 7, since: 1_000 });
    expect(localAlertMode("local", key, null)).toBe("full-screen");
    expect(localAlertMode("local", key, key)).toBe("banner");
  });

  it("raises the full-screen alert again when the tier re-enters local (new version)", () => {
    const first = tierPeriodKey({ version: 7, since: 1_000 });
    expect(localAlertMode("local", tierPeriodKey({ version: 9, since: 5_000 }), first)).toBe(
      "full-screen",
    );
    // Same version (decided alone while MySQL is down) but a later entry: still a new period.
    expect(localAlertMode("local", tierPeriodKey({ version: 7, since: 9_000 }), first)).toBe(
      "full-screen",
    );
  });
});
