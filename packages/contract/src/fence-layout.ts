import { InvalidArgumentError } from "./errors/invalid-argument-error.js";

/**
 * Fence layout, an unsigned 64-bit integer written in decimal:
 *
 *   bits 63..53  zero (reserved)
 *   bits 52..33  epoch   (20 bits, 1 048 575 epochs)
 *   bits 32..0   counter (33 bits, 8.6e9 grants per counter per epoch)
 *
 * The whole value stays below 2^53 so that Lua (whose numbers are doubles) can compose it
 * exactly inside the acquire script, and so that JavaScript numbers can carry it where a
 * string is inconvenient. Epochs only grow (minted durably in MySQL), and a counter is only
 * compared within one epoch, so any fence with a higher epoch is higher than every fence
 * of the lower epochs whatever their counters were: a counter that rolls back on failover
 * cannot make a fence go backwards once the epoch has been bumped.
 */
export const FENCE_LAYOUT = Object.freeze({
  epochBits: 20,
  counterBits: 33,
  /** 2^33: multiply the epoch by this and add the counter. */
  counterSpan: 8_589_934_592,
  maxEpoch: 1_048_575,
  /** Largest counter value; at this point the store bumps the epoch before granting again. */
  maxCounter: 8_589_934_591,
});

/** Composes a fence from its parts; the result is a decimal string. */
export function composeFence(epoch: number, counter: number): string {
  if (!Number.isInteger(epoch) || epoch < 0 || epoch > FENCE_LAYOUT.maxEpoch) {
    throw new RangeError(`epoch ${epoch} outside 0..${FENCE_LAYOUT.maxEpoch}`);
  }
  if (!Number.isInteger(counter) || counter < 0 || counter > FENCE_LAYOUT.maxCounter) {
    throw new RangeError(`counter ${counter} outside 0..${FENCE_LAYOUT.maxCounter}`);
  }
  return (BigInt(epoch) * BigInt(FENCE_LAYOUT.counterSpan) + BigInt(counter)).toString();
}

const FENCE_PATTERN = /^(0|[1-9][0-9]{0,19})$/;
const U64_MAX = (1n << 64n) - 1n;

/** Parses a fence string: a canonical decimal unsigned 64-bit integer. */
export function parseFence(fence: string): bigint {
  if (typeof fence !== "string" || !FENCE_PATTERN.test(fence)) {
    throw new InvalidArgumentError("fence", "must be a decimal unsigned 64-bit integer");
  }
  const value = BigInt(fence);
  if (value > U64_MAX) throw new InvalidArgumentError("fence", "exceeds 2^64 - 1");
  return value;
}

/** Splits a fence into epoch and counter (for display and audit). */
export function splitFence(fence: string): { epoch: number; counter: number } {
  const value = parseFence(fence);
  const span = BigInt(FENCE_LAYOUT.counterSpan);
  return { epoch: Number(value / span), counter: Number(value % span) };
}

/** Compares two fences numerically: negative when a < b, 0 when equal, positive when a > b. */
export function compareFences(a: string, b: string): number {
  const x = parseFence(a);
  const y = parseFence(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
