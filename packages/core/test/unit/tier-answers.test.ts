// What a tiered inspect answers when a tier fails (docs/decisions/0200): the tier in force
// must answer, or "not held" would be a guess; another tier's failure is skipped.
import { InvalidArgumentError, LockUnavailableError, type Tier } from "@warden/contract";
import { describe, expect, it } from "vitest";
import { answersOf, firstFound } from "../../src/tier/tier-routing.js";

const down = new Error("connection refused");

/** An `ask` that answers from `values` and fails for the tiers in `failing`. */
function asker<T>(values: Partial<Record<Tier, T>>, failing: Tier[] = []) {
  const asked: Tier[] = [];
  const ask = (tier: Tier): Promise<T | null> => {
    asked.push(tier);
    if (failing.includes(tier)) return Promise.reject(down);
    return Promise.resolve(values[tier] ?? null);
  };
  return { ask, asked };
}

describe("firstFound", () => {
  it("returns the first answer in order, asking no further", async () => {
    const { ask, asked } = asker({ mysql: "m", redis: "r" });
    expect(await firstFound(["redis", "mysql", "local"], "redis", ask)).toBe("r");
    expect(asked).toEqual(["redis"]);
  });

  it("skips another tier that fails: found elsewhere, or null when nothing holds the key", async () => {
    expect(await firstFound(["mysql", "redis"], "mysql", asker({}, ["redis"]).ask)).toBeNull();
    expect(
      await firstFound(["mysql", "redis", "local"], "mysql", asker({ local: "l" }, ["redis"]).ask),
    ).toBe("l");
  });

  it("refuses with LOCK_UNAVAILABLE naming the tier in force when it failed and nothing was found", async () => {
    await expect(
      firstFound(["redis", "mysql"], "redis", asker({}, ["redis"]).ask),
    ).rejects.toSatisfy(
      (error) =>
        error instanceof LockUnavailableError &&
        /redis tier did not answer/.test(error.message) &&
        error.cause === down,
    );
    // Found on another tier: that answer stands, the key is held.
    expect(
      await firstFound(["redis", "mysql"], "redis", asker({ mysql: "m" }, ["redis"]).ask),
    ).toBe("m");
  });

  it("passes bad input on as such, from any tier", async () => {
    const bad = new InvalidArgumentError("businessKey", "must not be empty");
    const ask = (tier: Tier) => (tier === "mysql" ? Promise.reject(bad) : Promise.resolve(null));
    await expect(firstFound(["redis", "mysql"], "redis", ask)).rejects.toBe(bad);
  });
});

describe("answersOf", () => {
  it("keeps every tier's answer in order and skips another tier's failure", async () => {
    const { ask } = asker({ redis: 1, local: 3 }, ["mysql"]);
    expect(await answersOf(["redis", "mysql", "local"], "redis", ask)).toEqual([
      ["redis", 1],
      ["local", 3],
    ]);
  });

  it("refuses when the tier in force failed, whatever the others said", async () => {
    const { ask } = asker({ redis: 1 }, ["mysql"]);
    await expect(answersOf(["mysql", "redis"], "mysql", ask)).rejects.toBeInstanceOf(
      LockUnavailableError,
    );
  });
});
