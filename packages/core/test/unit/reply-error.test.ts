import { ReplyError as IoredisReplyError } from "ioredis";
import { expect, test } from "vitest";
import { notExecutedReason, refusedForNow } from "../../src/redis/reply-error.js";

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

test("a refusal for a state that passes on its own is told from one for the call itself", () => {
  for (const reply of [
    // Redis 7.0's own words, from a write and from a script's first write on a replica.
    "READONLY You can't write against a read only replica.",
    "READONLY You can't write against a read only replica. script: 2b4e, on @user_script:1.",
    "LOADING Redis is loading the dataset in memory",
    "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
    "CLUSTERDOWN The cluster is down",
    "CLUSTERDOWN Hash slot not served",
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.",
  ]) {
    expect(notExecutedReason(new ReplyError(reply)), reply).toBe("refused");
    expect(refusedForNow(new ReplyError(reply)), reply).toBe(true);
  }
  expect(refusedForNow(new ReplyError("ERR bad lease"))).toBe(false);
  expect(refusedForNow(new ReplyError("ERR READONLY in the middle"))).toBe(false);
  // RESTORE's "target key name is busy": about the call, not the node.
  expect(refusedForNow(new ReplyError("BUSYKEY Target key name already exists."))).toBe(false);
  expect(refusedForNow(new Error("READONLY not a reply"))).toBe(false);
});
