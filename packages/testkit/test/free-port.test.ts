import { expect, test } from "vitest";
import { fetchAllows } from "../src/index.js";

// freePort hands out ports for test servers that are called over HTTP, so it must skip the
// ports fetch refuses: a stack that drew 10080 failed every call with "bad port".

test("fetch refuses 10080 before connecting, and freePort's filter says so", async () => {
  const refused = await fetch("http://127.0.0.1:10080/").then(
    () => null,
    (error: unknown) => (error as { cause?: { message?: string } }).cause?.message,
  );
  expect(refused).toBe("bad port");
  expect(fetchAllows(10_080)).toBe(false);
  expect(fetchAllows(10_081)).toBe(true);
});
