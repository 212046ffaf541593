import { LockUnavailableError } from "@warden/contract";
import type { ApiClient, CallOptions } from "../transport/api-client.js";
import { classifyFailure, failureToError } from "../transport/map-error.js";
import type { ClientContext } from "./client-context.js";

/**
 * One query or mutation that is not a lock command (inspect, waiters, reports), with the
 * server's errors turned into typed ones. `duringClose`: sent while `close()` runs too (a
 * release: close() releases what the client holds before the socket goes).
 *
 * @throws LockUnavailableError - the client is closed or the server unreachable.
 * @throws OutcomeUnknownError - no answer in time.
 */
export async function clientQuery<T>(
  ctx: ClientContext,
  run: (api: ApiClient, call: CallOptions) => Promise<T>,
  operation: string,
  resource: string,
  duringClose = false,
): Promise<T> {
  if (ctx.closing && !duringClose)
    throw new LockUnavailableError("the Warden client is closed", {
      reason: "client-closed",
    });
  try {
    return await ctx.connection.call(run, ctx.options.requestTimeoutMs);
  } catch (error) {
    const context = { operation, resource };
    throw failureToError(classifyFailure(error, context), context);
  }
}
