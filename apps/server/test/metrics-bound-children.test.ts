import { expect, it } from "vitest";
import { BoundChildren } from "../src/metrics/bound-children.js";

it("binds one child per distinct label tuple, with the values in label order", () => {
  const bound: string[][] = [];
  const children = new BoundChildren((values) => {
    bound.push([...values]);
    return { values: [...values] };
  });
  const tuples = [
    ["r1", "redis", "granted", "app"],
    ["r1", "redis", "refused", "app"],
    ["r1", "mysql", "granted", "app"],
    ["r2", "redis", "granted", "app"],
    ["r1", "redis", "granted", "other"],
  ];
  const first = tuples.map((tuple) => children.get(...tuple));
  const again = tuples.map((tuple) => children.get(...tuple));
  expect(again).toEqual(first);
  again.forEach((child, index) => expect(child).toBe(first[index]));
  expect(children.size).toBe(tuples.length);
  expect(bound).toEqual(tuples);
  expect(first.map((child) => child.values)).toEqual(tuples);
  // One label: its value is the whole key.
  const single = new BoundChildren((values) => ({ resource: values[0] }));
  expect(single.get("a")).toBe(single.get("a"));
  expect(single.get("b")).not.toBe(single.get("a"));
  expect(single.size).toBe(2);
});
