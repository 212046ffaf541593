import { describe, expect, it } from "vitest";
import { StoreEventEmitter } from "../../src/events/event-emitter.js";
import type { StoreEvent } from "../../src/index.js";
import { parseAcquireReply, parsePlainAcquireReply } from "../../src/redis/ops/acquire.js";
import { parseExtendReply } from "../../src/redis/ops/extend.js";
import { parseLeaseReply } from "../../src/redis/ops/inspect.js";
import { parseReleaseReply } from "../../src/redis/ops/release.js";
import { ReplyCode, UnexpectedReplyError } from "../../src/redis/reply-code.js";

const LEASE = "AAAAAAAAAAAAAAAAAAAAAA|8589934593|2|1796090000000|3|client-1|owner|with|pipes";

describe("Redis script replies are checked and typed", () => {
  it("acquire: a grant, a refusal and each epoch answer", () => {
    expect(parseAcquireReply([1, "L", 8589934593, 1, 500, 1000, 1000, 0])).toEqual({
      code: ReplyCode.Ok,
      lockId: "L",
      fence: 8589934593,
      reentry: 1,
      ttlMs: 500,
      nowMs: 1000,
      grantedAt: 1000,
      renewals: 0,
    });
    expect(parseAcquireReply([0, "c", "o", 250, 1000])).toEqual({
      code: ReplyCode.Refused,
      holder: { clientId: "c", ownerId: "o" },
      ttlMs: 250,
    });
    expect(parseAcquireReply([-1])).toEqual({ code: ReplyCode.BadLease });
    expect(parseAcquireReply([-2, "abc"])).toEqual({ code: ReplyCode.NotBound, replid: "abc" });
    expect(parseAcquireReply([-3, 7])).toEqual({ code: ReplyCode.EpochBelowFloor, epoch: 7 });
    expect(parseAcquireReply([-4])).toEqual({ code: ReplyCode.CounterExhausted });
  });

  it("acquire: a reply of another shape is an UnexpectedReplyError, never a guess", () => {
    for (const bad of [
      null,
      "OK",
      [],
      [-5],
      [7],
      [0], // a refusal whose lease string did not parse (Lua drops trailing nils)
      [1, "L", "8589934593", 1, 500, 1000, 1000, 0], // fence as text
      [1, "L", 8589934593, 1, 500, 1000], // no grantedAt / renewals
    ]) {
      expect(() => parseAcquireReply(bad)).toThrow(UnexpectedReplyError);
    }
  });

  it("plain acquire: a new grant is filled in from the call, a re-entry comes whole", () => {
    expect(parsePlainAcquireReply([1, 8589934593, 1000], "L", 500)).toEqual({
      code: ReplyCode.Ok,
      lockId: "L",
      fence: 8589934593,
      reentry: 1,
      ttlMs: 500,
      nowMs: 1000,
      grantedAt: 1000,
      renewals: 0,
    });
    expect(
      parsePlainAcquireReply([1, 8589934593, 2000, "FIRST", 2, 900, 1000, 3], "L", 500),
    ).toEqual({
      code: ReplyCode.Ok,
      lockId: "FIRST",
      fence: 8589934593,
      reentry: 2,
      ttlMs: 900,
      nowMs: 2000,
      grantedAt: 1000,
      renewals: 3,
    });
    expect(parsePlainAcquireReply([0, "c", "o", 250], "L", 500)).toEqual({
      code: ReplyCode.Refused,
      holder: { clientId: "c", ownerId: "o" },
      ttlMs: 250,
    });
    expect(parsePlainAcquireReply([-1], "L", 500)).toEqual({ code: ReplyCode.BadLease });
    expect(parsePlainAcquireReply([-2, "abc"], "L", 500)).toEqual({
      code: ReplyCode.NotBound,
      replid: "abc",
    });
    expect(parsePlainAcquireReply([-3, 7], "L", 500)).toEqual({
      code: ReplyCode.EpochBelowFloor,
      epoch: 7,
    });
    expect(parsePlainAcquireReply([-4], "L", 500)).toEqual({ code: ReplyCode.CounterExhausted });
    for (const bad of [
      null,
      "OK",
      [],
      [-5],
      [-7], // the plain script never answers "queued"
      [7],
      [0], // a refusal whose lease string did not parse (Lua drops trailing nils)
      [0, "c", "o"],
      [1, "8589934593", 1000], // fence as text
      [1, 8589934593], // no clock
      [1, 8589934593, 1000, "FIRST", 2, 900], // a re-entry cut short
      [1, 8589934593, 2000, "FIRST", "2", 900, 1000, 3], // reentry as text
    ]) {
      expect(() => parsePlainAcquireReply(bad, "L", 500)).toThrow(UnexpectedReplyError);
    }
  });

  it("release: entries left and the lease as it was, or why not", () => {
    expect(parseReleaseReply([1, 1, LEASE, 0])).toEqual({
      code: ReplyCode.Ok,
      remaining: 1,
      watched: false,
      before: {
        lockId: "AAAAAAAAAAAAAAAAAAAAAA",
        fence: "8589934593",
        reentry: 2,
        grantedAt: 1796090000000,
        renewals: 3,
        holder: { clientId: "client-1", ownerId: "owner|with|pipes" },
      },
    });
    expect(parseReleaseReply([-5])).toEqual({ code: ReplyCode.NoLease });
    expect(parseReleaseReply([-6])).toEqual({ code: ReplyCode.OtherHolder });
    expect(parseReleaseReply([1, 0, LEASE, 1])).toMatchObject({ remaining: 0, watched: true });
    expect(() => parseReleaseReply([1, 0])).toThrow(UnexpectedReplyError);
    // The watch flag is part of the reply: a script without it is not this one.
    expect(() => parseReleaseReply([1, 0, LEASE])).toThrow(UnexpectedReplyError);
    expect(() => parseReleaseReply([-1])).toThrow(UnexpectedReplyError);
  });

  it("extend, inspect and force-release", () => {
    expect(parseExtendReply([1, LEASE, 900, 5, 0])).toEqual({
      code: ReplyCode.Ok,
      value: LEASE,
      ttlMs: 900,
      nowMs: 5,
      delayMs: 0,
    });
    // The lock-delay that moved with the lease (the lease mirror carries it, decision 0178).
    expect(parseExtendReply([1, LEASE, 900, 5, 3_000])).toMatchObject({ delayMs: 3_000 });
    expect(() => parseExtendReply([1, LEASE, 900, 5])).toThrow(UnexpectedReplyError);
    expect(parseExtendReply([-1])).toEqual({ code: ReplyCode.BadLease });
    expect(() => parseExtendReply([0])).toThrow(UnexpectedReplyError);
    expect(parseLeaseReply("inspectLock-1", [0])).toEqual({ code: ReplyCode.Refused });
    expect(parseLeaseReply("inspectLock-1", [1, LEASE, 10, 20])).toEqual({
      code: ReplyCode.Ok,
      value: LEASE,
      ttlMs: 10,
      nowMs: 20,
    });
    expect(() => parseLeaseReply("forceRelease-1", [1, LEASE])).toThrow(UnexpectedReplyError);
  });
});

describe("StoreEventEmitter", () => {
  it("stamps key, tier and time, and a throwing sink does not break the store", () => {
    const seen: StoreEvent[] = [];
    const events = new StoreEventEmitter("mysql", (event) => seen.push(event));
    const before = Date.now();
    events.lock({ resource: "r", businessKey: "k" }, { type: "expired", lockId: "L" });
    events.epoch(3, "why");
    expect(seen[0]).toMatchObject({
      type: "expired",
      resource: "r",
      businessKey: "k",
      tier: "mysql",
    });
    expect(seen[0]!.at).toBeGreaterThanOrEqual(before);
    expect(seen[1]).toEqual({
      type: "epoch",
      tier: "mysql",
      at: seen[1]!.at,
      epoch: 3,
      reason: "why",
    });
    const throwing = new StoreEventEmitter("redis", () => {
      throw new Error("sink failed");
    });
    expect(() => throwing.epoch(1, "x")).not.toThrow();
  });
});
