import { TRPCError } from "@trpc/server";
import { expect } from "vitest";

/** Awaits `promise` and asserts it rejects with the tRPC `code`; returns the error. */
export async function expectCode(
  promise: Promise<unknown>,
  code: TRPCError["code"],
): Promise<TRPCError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, `expected ${code}`).toBeInstanceOf(TRPCError);
  expect((error as TRPCError).code).toBe(code);
  return error as TRPCError;
}
