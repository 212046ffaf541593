import { expect, test } from "vitest";
import { ShortCircuit } from "../src/shortcircuit/short-circuit.js";
import { monotonicNow } from "../src/time/monotonic.js";

const other = { clientId: "c1", ownerId: "a" };

test("a release notice handled before the refusal it follows does not leave the key refused", () => {
  const cache = new ShortCircuit(() => true);
  const sentAt = monotonicNow();
  // One frame: the refusal's reply, then the notice that the key was freed. The notice is
  // handled at once; the reply's continuation remembers the refusal afterwards.
  cache.released([["r", "k"]]);
  cache.remember("r", "k", other, 30_000, sentAt);
  expect(cache.refuse("r", "k", "c1", "b")).toBeNull();
  expect(cache.stats.cached).toBe(0);
});

test("a refusal sent after the last release notice is remembered and refuses locally", () => {
  const cache = new ShortCircuit(() => true);
  cache.released([["r", "k"]]);
  const sentAt = monotonicNow() + 1;
  cache.remember("r", "k", other, 30_000, sentAt);
  expect(cache.refuse("r", "k", "c1", "b")).toMatchObject({ holder: other });
  // Its own holder is never refused locally (it may re-enter).
  expect(cache.refuse("r", "k", "c1", "a")).toBeNull();
  cache.released([["r", "k"]]);
  expect(cache.refuse("r", "k", "c1", "b")).toBeNull();
});
