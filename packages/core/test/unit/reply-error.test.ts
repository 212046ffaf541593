import { ReplyError as IoredisReplyError } from "ioredis";
import { expect, test } from "vitest";
import { notExecutedReason } from "../../src/redis/reply-error.js";

// The messages are ioredis's own (its cluster client's `handleError`): the redirections it
// gave up after, followed by the last try's error as `String(error)`.
// ioredis re-exports redis-errors' class untyped.
const ReplyError = IoredisReplyError as unknown as new (message: string) => Error;

const gaveUpAfter = (last: Error) =>
  new Error(`Too many Cluster redirections. Last error: ${String(last)}`);

test("a cluster that redirected every try ran the call nowhere", () => {
  for (const reply of [
    "TRYAGAIN Multiple keys request during rehashing of slot",
    "ASK 3999 127.0.0.1:7001",
    "MOVED 3999 127.0.0.1:7001",
    "CLUSTERDOWN The cluster is down",
  ]) {
    expect(notExecutedReason(gaveUpAfter(new ReplyError(reply))), reply).toBe("redirected");
  }
});

test("a give-up whose last try may have run leaves the outcome unknown", () => {
  expect(notExecutedReason(gaveUpAfter(new Error("Connection is closed.")))).toBeUndefined();
  expect(notExecutedReason(gaveUpAfter(new Error("TRYAGAIN not a reply")))).toBeUndefined();
  expect(notExecutedReason(new Error("Connection is closed."))).toBeUndefined();
});

test("Redis's own error reply and a client without a connection are not executed", () => {
  expect(notExecutedReason(new ReplyError("ERR bad lease"))).toBe("refused");
  expect(
    notExecutedReason(new Error("Cluster isn't ready and enableOfflineQueue options is false")),
  ).toBe("unreachable");
});
