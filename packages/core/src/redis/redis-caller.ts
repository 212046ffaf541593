import {
  InvalidArgumentError,
  LockUnavailableError,
  OutcomeUnknownError,
  type LockKey,
  type UncertainOperation,
} from "@warden/contract";
import type { StoreEventEmitter } from "../events/event-emitter.js";
import { withCleanup } from "../store/uncertain-cleanup.js";
import { withTimeout } from "../store/with-timeout.js";
import { notExecutedReason, retryAfterMsOf } from "./reply-error.js";
import type { UncertainGrantCleaner } from "./uncertain-grant-cleaner.js";

/** What a Redis call is for; says how a failure of it is reported. */
export type RedisOperation =
  | UncertainOperation
  | "inspect"
  | "force-release"
  | "leave-queue"
  | "withdraw-intent";

/**
 * Sends store calls with their deadline and turns failures into typed errors
 * (docs/design.md#no-replay-no-guess): a call that certainly did not run is
 * `LockUnavailableError`; any other failure of a write leaves its outcome unknown, and an
 * acquire whose outcome is unknown is cleaned up by lockId in the background.
 */
export class RedisCaller {
  constructor(
    private readonly commandTimeoutMs: number,
    private readonly cleaner: UncertainGrantCleaner,
    private readonly events: StoreEventEmitter,
  ) {}

  /** The deadline of a call: the command timeout, and at most a third of the lease. */
  timeoutFor(leaseMs: number | undefined): number {
    const bound = leaseMs === undefined ? Infinity : Math.floor(leaseMs / 3);
    return Math.max(1, Math.min(this.commandTimeoutMs, bound));
  }

  /**
   * Runs `send` within the deadline for `leaseMs` and types its reply with `parse`; a
   * failure, or a reply that does not parse, becomes a typed error.
   */
  async call<T>(
    operation: RedisOperation,
    lockId: string,
    send: () => Promise<unknown>,
    parse: (reply: unknown) => T,
    leaseMs?: number,
  ): Promise<T> {
    try {
      return parse(await withTimeout(send(), this.timeoutFor(leaseMs)));
    } catch (error) {
      throw this.failure(operation, undefined, lockId, error, leaseMs);
    }
  }

  /** Maps a failed call to a typed error; an uncertain grant is cleaned up by lockId. */
  failure(
    operation: RedisOperation,
    key: LockKey | undefined,
    lockId: string,
    error: unknown,
    leaseMs: number | undefined,
  ): Error {
    if (error instanceof InvalidArgumentError) return error;
    const notExecuted = notExecutedReason(error);
    if (notExecuted === "unreachable") {
      return new LockUnavailableError(
        `Redis is unreachable, so ${operation} was not sent and nothing changed in Redis; ` +
          `retry once Redis is back (the tier controller moves new grants to MySQL while it is down)`,
        { cause: error, retryAfterMs: retryAfterMsOf(error) },
      );
    }
    if (notExecuted === "redirected") {
      return new LockUnavailableError(
        `Redis Cluster redirected ${operation} until the client gave up (the key's slot is ` +
          `being moved between masters, or the slot map is settling after a failover); it ran ` +
          `nowhere and nothing changed: retry shortly`,
        { cause: error, retryAfterMs: retryAfterMsOf(error) },
      );
    }
    if (notExecuted === "refused") {
      return new LockUnavailableError(`Redis refused ${operation}: ${(error as Error).message}`, {
        cause: error,
        // A node that is a replica, loading or cut off from its master serves again soon
        // (or its successor does): say when to retry, as for a call that was not sent.
        retryAfterMs: retryAfterMsOf(error),
      });
    }
    if (
      operation === "inspect" ||
      operation === "force-release" ||
      operation === "leave-queue" ||
      operation === "withdraw-intent"
    ) {
      return new LockUnavailableError(`Redis ${operation} failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const unknown = new OutcomeUnknownError(lockId, operation, { cause: error });
    if (operation === "acquire" && key && leaseMs !== undefined) {
      let settle: (cleanedUp: boolean) => void = () => undefined;
      const settled = new Promise<boolean>((resolve) => (settle = resolve));
      this.cleaner.schedule(key, lockId, leaseMs, (cleanedUp) => {
        settle(cleanedUp);
        this.events.lock(key, { type: "outcome-unknown", lockId, cleanedUp });
      });
      return withCleanup(unknown, settled);
    }
    return unknown;
  }
}
