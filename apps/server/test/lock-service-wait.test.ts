import {
  LockTimeoutError,
  LockUnavailableError,
  OutcomeUnknownError,
  type AcquireResult,
  type Holder,
} from "@warden/contract";
import { withCleanup } from "@warden/core";
import { describe, expect, it } from "vitest";
import { LockService, type AcquireRequest } from "../src/locks/lock-service.js";
import { ReleaseNotifier } from "../src/locks/release-notifier.js";
import type { TieredLocks } from "../src/locks/tiered-locks-port.js";
import { WaitQueues } from "../src/locks/wait-queues.js";
import type { ResourceView } from "../src/registry/resource-view.js";

// The mutex's server-side wait (LockService.wait) against a scripted tier facade: which
// errors of a try it waits through and what it ends with (docs/decisions/0232, 0235). The
// stores behind those errors are exercised for real in cluster-lock.test.ts,
// wait-through-outage.test.ts and wait-through-unknown-outcome.test.ts.

const holder: Holder = { clientId: "c1", ownerId: "w1" };
const resource = {
  name: "orders",
  tenantId: "t1",
  fair: false,
  lockDelayMs: 0,
  degrade: true,
  localFallback: "deny",
  waitReplicas: 0,
} as unknown as ResourceView;

const refused: AcquireResult = { granted: false, holder, ttlMs: 5_000, tier: "redis" };
const grant: AcquireResult = {
  granted: true,
  lockId: "AAAAAAAAAAAAAAAAAAAAAA",
  fence: "1",
  tier: "redis",
  ttlMs: 5_000,
} as AcquireResult;

/** A LockService whose tier facade answers each try with the next of `answers`. */
function serviceAnswering(answers: ReadonlyArray<() => Promise<AcquireResult>>) {
  let tries = 0;
  const locks = {
    acquire: () => {
      const answer = answers[Math.min(tries, answers.length - 1)]!;
      tries += 1;
      return answer();
    },
    leaveQueue: () => Promise.resolve(false),
  } as unknown as TieredLocks;
  const waiters = new WaitQueues();
  const service = new LockService(locks, waiters, new ReleaseNotifier());
  return { service, waiters, tries: () => tries };
}

function request(waitMs: number): AcquireRequest {
  return {
    principal: { kind: "tenant", tenantId: "t1" } as unknown as AcquireRequest["principal"],
    resource,
    businessKey: "o-1",
    holder,
    leaseMs: 5_000,
    waitMs,
    waitId: "wait-1",
    signal: new AbortController().signal,
  };
}

const unreachable = () =>
  new LockUnavailableError("Redis is unreachable, so acquire was not sent", { retryAfterMs: 40 });

describe("LockService: a mutex wait and the errors of its tries", () => {
  it("goes on through tries that ran nowhere (unreachable, redirected) and is granted", async () => {
    const redirected = new LockUnavailableError("Redis Cluster redirected acquire", {
      retryAfterMs: 40,
    });
    const { service, waiters, tries } = serviceAnswering([
      // Held for 10 ms more: the wait sleeps that long.
      () => Promise.resolve({ ...refused, ttlMs: 10 } as AcquireResult),
      () => Promise.reject(unreachable()),
      () => Promise.reject(redirected),
      () => Promise.resolve(grant),
    ]);
    // Each failed try pauses its retryAfterMs (40 ms): with the 2 s re-check instead, the
    // grant would not come within waitMs.
    await expect(service.acquire(request(1_000))).resolves.toMatchObject({ granted: true });
    expect(tries()).toBe(4);
    expect(waiters.list(resource.name)).toEqual([]);
  });

  it("ends with the store's error when waitMs runs out while tries keep failing", async () => {
    const error = unreachable();
    const { service, tries } = serviceAnswering([() => Promise.reject(error)]);
    await expect(service.acquire(request(300))).rejects.toBe(error);
    expect(tries()).toBeGreaterThanOrEqual(3);
  });

  it("ends with LOCK_TIMEOUT when the last try before the deadline was a refusal", async () => {
    const { service } = serviceAnswering([
      () => Promise.reject(unreachable()),
      () => Promise.resolve({ ...refused, ttlMs: 10 } as AcquireResult),
    ]);
    await expect(service.acquire(request(300))).rejects.toBeInstanceOf(LockTimeoutError);
  });

  it("ends at once on an error that names no retry, and a try answers with any error", async () => {
    const down = new LockUnavailableError("MySQL tier: acquire failed");
    const waiting = serviceAnswering([() => Promise.reject(down)]);
    await expect(waiting.service.acquire(request(5_000))).rejects.toBe(down);
    expect(waiting.tries()).toBe(1);
    const error = unreachable();
    const trying = serviceAnswering([() => Promise.reject(error)]);
    await expect(trying.service.acquire(request(0))).rejects.toBe(error);
    expect(trying.tries()).toBe(1);
  });

  /** An unknown outcome whose clean-up settles with `cleanedUp` after `ms`. */
  const unknownCleanedUp = (cleanedUp: boolean, ms = 20) =>
    withCleanup(
      new OutcomeUnknownError("BBBBBBBBBBBBBBBBBBBBBB", "acquire"),
      new Promise((resolve) => setTimeout(() => resolve(cleanedUp), ms)),
    );

  it("goes on after a refusal and an unknown outcome whose clean-up answered, and is granted", async () => {
    const { service, tries } = serviceAnswering([
      () => Promise.resolve({ ...refused, ttlMs: 10 } as AcquireResult),
      () => Promise.reject(unknownCleanedUp(true)),
      () => Promise.resolve(grant),
    ]);
    await expect(service.acquire(request(1_000))).resolves.toMatchObject({ granted: true });
    expect(tries()).toBe(3);
  });

  it("ends with an unknown outcome on its first try, whose clean-up gave up, or that has none", async () => {
    // The first try may have re-entered a lease this caller already held (decision 0235).
    const first = unknownCleanedUp(true);
    const atFirst = serviceAnswering([() => Promise.reject(first)]);
    await expect(atFirst.service.acquire(request(1_000))).rejects.toBe(first);
    expect(atFirst.tries()).toBe(1);
    const givenUp = unknownCleanedUp(false);
    const gaveUp = serviceAnswering([
      () => Promise.resolve({ ...refused, ttlMs: 10 } as AcquireResult),
      () => Promise.reject(givenUp),
    ]);
    await expect(gaveUp.service.acquire(request(1_000))).rejects.toBe(givenUp);
    expect(gaveUp.tries()).toBe(2);
    // A release or extend's unknown outcome, or a MySQL semaphore's: no clean-up recorded.
    const bare = new OutcomeUnknownError("CCCCCCCCCCCCCCCCCCCCCC", "acquire");
    const noCleanup = serviceAnswering([
      () => Promise.resolve({ ...refused, ttlMs: 10 } as AcquireResult),
      () => Promise.reject(bare),
    ]);
    await expect(noCleanup.service.acquire(request(1_000))).rejects.toBe(bare);
    expect(noCleanup.tries()).toBe(2);
  });

  it("ends with the unknown outcome when waitMs runs out before its clean-up answers", async () => {
    // A clean-up that never answers: the wait must not sit it out past its deadline.
    const stuck = withCleanup(
      new OutcomeUnknownError("DDDDDDDDDDDDDDDDDDDDDD", "acquire"),
      new Promise<boolean>(() => undefined),
    );
    const { service, tries } = serviceAnswering([
      () => Promise.resolve({ ...refused, ttlMs: 10 } as AcquireResult),
      () => Promise.reject(stuck),
      () => Promise.resolve(grant),
    ]);
    await expect(service.acquire(request(300))).rejects.toBe(stuck);
    expect(tries()).toBe(2);
  });
});
