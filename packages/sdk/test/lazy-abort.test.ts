import { expect, test } from "vitest";
import { LazyAbort } from "../src/lease/lazy-abort.js";

test("a signal first read after the abort is already aborted, with the first reason", () => {
  const lazy = new LazyAbort();
  expect(lazy.aborted).toBe(false);
  expect(lazy.abort("first")).toBe(true);
  expect(lazy.abort("second")).toBe(false);
  expect(lazy.aborted).toBe(true);
  expect(lazy.reason).toBe("first");
  expect(lazy.signal.aborted).toBe(true);
  expect(lazy.signal.reason).toBe("first");
});

test("a signal read before the abort fires its listeners once, with the first reason", () => {
  const lazy = new LazyAbort();
  const signal = lazy.signal;
  const seen: unknown[] = [];
  signal.addEventListener("abort", () => seen.push(signal.reason));
  expect(signal.aborted).toBe(false);
  lazy.abort("lost");
  lazy.abort("again");
  expect(seen).toEqual(["lost"]);
  expect(lazy.signal).toBe(signal);
});
