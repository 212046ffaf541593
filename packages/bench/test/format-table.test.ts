import { describe, expect, it } from "vitest";
import { formatMs, formatRate, formatRatio, formatShare } from "../src/report/format-number.js";
import { markdownTable } from "../src/report/markdown-table.js";
import { cpuPerCycleTable, resultsTable } from "../src/report/results-table.js";
import { cell } from "./support/cell.js";

describe("markdownTable", () => {
  it("pads columns to one width and marks alignment in the rule", () => {
    const table = markdownTable(
      ["name", "n"],
      [
        ["a", "1"],
        ["long name", "12345"],
      ],
      ["left", "right"],
    );
    expect(table.split("\n")).toEqual([
      "| name      |     n |",
      "|:----------|------:|",
      "| a         |     1 |",
      "| long name | 12345 |",
    ]);
  });
});

describe("number formats", () => {
  it("keeps three significant digits for latencies and shows missing ones as –", () => {
    expect(formatMs(0.4123)).toBe("0.412");
    expect(formatMs(3.271)).toBe("3.27");
    expect(formatMs(41.25)).toBe("41.3");
    expect(formatMs(1204.4)).toBe("1204");
    expect(formatMs(Number.NaN)).toBe("–");
  });

  it("groups rates, and formats shares and ratios", () => {
    expect(formatRate(12345.6)).toBe("12 346");
    expect(formatRate(999)).toBe("999");
    expect(formatShare(0.9987)).toBe("99.9%");
    expect(formatShare(1)).toBe("100%");
    expect(formatRatio(0.4712)).toBe("0.47×");
    expect(formatRatio(null)).toBe("–");
  });
});

describe("resultsTable", () => {
  it("has one row per cell with rate, share, latencies, CPU and errors", () => {
    const table = resultsTable([
      cell({ variant: "sdk", concurrency: 64, keys: 10_000, cyclesPerSec: 5_432.1 }),
    ]);
    const [header, , row] = table.split("\n");
    expect(header).toContain("acq p99.9");
    expect(header).toContain("cpu server");
    expect(row?.split("|").map((s) => s.trim())).toEqual([
      "",
      "sdk",
      "64",
      "10 000",
      "5 432",
      "99.5%",
      "0.500",
      "2.00",
      "4.00",
      "3.00",
      "90%",
      "80%",
      "20%",
      "–",
      "0",
      "",
    ]);
  });

  it("adds up CPU per cycle across processes", () => {
    const row = cpuPerCycleTable([cell({ variant: "sdk" })]).split("\n")[2];
    expect(row?.split("|").map((s) => s.trim())).toEqual([
      "",
      "sdk",
      "16",
      "10 000",
      "300",
      "1 200",
      "50",
      "–",
      "1 550",
      "",
    ]);
  });

  it("shows the other instances' part of the server's CPU, counted once in the total", () => {
    const fleet = cell({
      variant: "sdk",
      cpuUsPerCycle: { loadgen: 300, server: 1_200, serverPeers: 150, redis: 50 },
    });
    const row = cpuPerCycleTable([fleet]).split("\n")[2];
    const columns = row?.split("|").map((s) => s.trim());
    expect(columns?.[5]).toBe("1 200 (150)");
    expect(columns?.[8]).toBe("1 550");
  });
});
