import { randomBytes } from "node:crypto";
import type { Holder } from "../../src/index.js";

/** A resource name unique to one test, so tests never see each other's keys. */
export function uniqueResource(label = "t"): string {
  return `${label}-${randomBytes(6).toString("hex")}`;
}

/** A holder with a random clientId. */
export function holder(
  ownerId = "owner-1",
  clientId = `client-${randomBytes(4).toString("hex")}`,
): Holder {
  return { clientId, ownerId };
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
