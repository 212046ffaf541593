import { describe, expect, it } from "vitest";
import { parseChaosArgs } from "../src/run/parse-args.js";

describe("pnpm chaos --wait-replicas", () => {
  it("defaults to grants that do not wait", () => {
    expect(parseChaosArgs(["--seed", "3"]).waitReplicas).toBe(0);
  });

  it("takes up to the replicas a master has: two in the sentinel group, one in the cluster", () => {
    expect(parseChaosArgs(["--wait-replicas", "2"]).waitReplicas).toBe(2);
    expect(parseChaosArgs(["--redis", "cluster", "--wait-replicas", "1"]).waitReplicas).toBe(1);
    expect(() => parseChaosArgs(["--redis", "cluster", "--wait-replicas", "2"])).toThrow(
      "--wait-replicas must be a whole number from 0 to 1 on --redis cluster",
    );
    expect(() => parseChaosArgs(["--wait-replicas", "3"])).toThrow(
      "from 0 to 2 on --redis sentinel",
    );
  });

  it("refuses what is not a whole number", () => {
    for (const bad of ["-1", "1.5", "one", ""]) {
      expect(() => parseChaosArgs([`--wait-replicas=${bad}`])).toThrow("--wait-replicas must be");
    }
  });
});
