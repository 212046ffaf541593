import { expect } from "vitest";
import { InvalidArgumentError } from "../../src/index.js";

/** A store's key list, as the read-write and semaphore stores have it. */
type KeyList = (input: {
  readonly resource: string;
  readonly cursor?: string;
  readonly limit?: number;
}) => Promise<unknown>;

/**
 * Asserts that `list` refuses a bad resource, limit or cursor with `InvalidArgumentError`
 * (`resource` is a valid name nothing was granted on).
 */
export async function expectListRefusals(list: KeyList, resource: string): Promise<void> {
  for (const bad of [
    { resource: "bad resource!" },
    { resource, limit: 0 },
    { resource, limit: 1_000_001 },
    { resource, cursor: "not a cursor" },
    { resource, cursor: "" },
  ]) {
    const error = await list(bad).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error, JSON.stringify(bad)).toBeInstanceOf(InvalidArgumentError);
  }
}
