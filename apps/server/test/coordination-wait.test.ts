import {
  LockTimeoutError,
  LockUnavailableError,
  OutcomeUnknownError,
  WaitCancelledError,
} from "@warden/contract";
import { withCleanup } from "@warden/core";
import { describe, expect, it } from "vitest";
import { ReleaseNotifier } from "../src/locks/release-notifier.js";
import { WaitQueues } from "../src/locks/wait-queues.js";
import { untilGranted, type WaitRequest } from "../src/usecases/coordination-wait.js";

// The wait loop the semaphore and read-write lock acquires share, with the server's own
// notifier and wait queues; the store is a scripted answer per try.

type Answer = { granted: true; lockId: string } | { granted: false; retryAfterMs: number };

const key = { resource: "orders", businessKey: "o-1" };

function request(waitMs: number, signal = new AbortController().signal): WaitRequest {
  return {
    key,
    holder: { clientId: "c1", ownerId: "w1" },
    tenantId: "t1",
    waitMs,
    waitId: waitMs > 0 ? "wait-1" : null,
    ref: null,
    signal,
  };
}

/** A grant handed back as undeliverable; these tests' grants all reach their caller. */
const unexpected = (grant: { lockId: string }) =>
  Promise.reject(new Error(`released ${grant.lockId} unexpectedly`));

/** Lets every promise chain that needs no timer run to its end. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A store that fails every try with `error`, counting the tries. */
function failing(error: Error) {
  let tries = 0;
  return {
    attempt: () => {
      tries += 1;
      return Promise.reject(error);
    },
    tries: () => tries,
  };
}

function setup() {
  const notifier = new ReleaseNotifier();
  const waiters = new WaitQueues();
  return { notifier, waiters, deps: { notifier, waiters } };
}

describe("untilGranted", () => {
  it("a try answers its refusal at once, lists no waiter and leaves no listener", async () => {
    const { deps, waiters, notifier } = setup();
    let tries = 0;
    const answer = await untilGranted<Answer>(
      deps,
      request(0),
      () => {
        tries += 1;
        expect(waiters.list(key.resource)).toEqual([]);
        return Promise.resolve({ granted: false, retryAfterMs: 500 });
      },
      unexpected,
    );
    expect(answer).toEqual({ granted: false, retryAfterMs: 500 });
    expect(tries).toBe(1);
    // A release now reaches nobody: the try registered nothing.
    expect((notifier as unknown as { listeners: Map<string, unknown> }).listeners.size).toBe(0);
  });

  it("a release that lands while a try is still out is not missed: the next try starts at once", async () => {
    const { deps, notifier, waiters } = setup();
    let tries = 0;
    const pending = untilGranted<Answer>(
      deps,
      request(5_000),
      () => {
        tries += 1;
        if (tries === 1) {
          // The holder releases before this refusal reaches the waiter.
          notifier.released(key, false);
          return Promise.resolve({ granted: false, retryAfterMs: 900 });
        }
        return Promise.resolve({ granted: true, lockId: "L2" });
      },
      unexpected,
    );
    // No timer has run yet: had the wait gone to sleep, the second try would be 900 ms away.
    await settle();
    expect(tries).toBe(2);
    await expect(pending).resolves.toEqual({ granted: true, lockId: "L2" });
    expect(waiters.list(key.resource)).toEqual([]);
  });

  it("a sleeping wait is listed with the waiters and woken by a release", async () => {
    const { deps, notifier, waiters } = setup();
    let tries = 0;
    const pending = untilGranted<Answer>(
      deps,
      request(5_000),
      () => {
        tries += 1;
        return Promise.resolve(
          tries === 1 ? { granted: false, retryAfterMs: 900 } : { granted: true, lockId: "L2" },
        );
      },
      unexpected,
    );
    await settle();
    expect(tries).toBe(1);
    expect(waiters.list(key.resource).map((w) => w.ownerId)).toEqual(["w1"]);
    notifier.released(key, false);
    await settle();
    expect(tries).toBe(2);
    await expect(pending).resolves.toEqual({ granted: true, lockId: "L2" });
    expect(waiters.list(key.resource)).toEqual([]);
  });

  it("a wait that is never granted fails as a timeout after waitMs, trying at most every retryAfterMs", async () => {
    const { deps, waiters } = setup();
    let tries = 0;
    await expect(
      untilGranted<Answer>(
        deps,
        request(300),
        () => {
          tries += 1;
          return Promise.resolve({ granted: false, retryAfterMs: 100 });
        },
        unexpected,
      ),
    ).rejects.toBeInstanceOf(LockTimeoutError);
    // It slept between tries: at least one more try, never more than one per retryAfterMs
    // (and a last one for the rest of the wait).
    expect(tries).toBeGreaterThanOrEqual(2);
    expect(tries).toBeLessThanOrEqual(6);
    expect(waiters.list(key.resource)).toEqual([]);
  });

  it("a wait cancelled by its waitId, or by the caller's signal, fails as cancelled", async () => {
    const { deps, waiters } = setup();
    const refuse = () => Promise.resolve<Answer>({ granted: false, retryAfterMs: 1_000 });
    const byId = untilGranted<Answer>(deps, request(5_000), refuse, unexpected);
    await settle();
    expect(waiters.cancel("wait-1", "t1")).toBe(true);
    await expect(byId).rejects.toBeInstanceOf(WaitCancelledError);

    const caller = new AbortController();
    const bySignal = untilGranted<Answer>(deps, request(5_000, caller.signal), refuse, unexpected);
    await settle();
    caller.abort();
    await expect(bySignal).rejects.toBeInstanceOf(WaitCancelledError);
    expect(waiters.list(key.resource)).toEqual([]);
  });

  it("a try that throws ends the wait with that error and unlists it", async () => {
    const { deps, waiters } = setup();
    await expect(
      untilGranted<Answer>(
        deps,
        request(5_000),
        () => Promise.reject(new Error("store down")),
        unexpected,
      ),
    ).rejects.toThrow("store down");
    expect(waiters.list(key.resource)).toEqual([]);
  });

  // What the MySQL tier throws when InnoDB picked every attempt as a deadlock victim.
  const contended = () =>
    new LockUnavailableError("MySQL tier: the semaphore stayed contended", {
      reason: "contended",
      retryAfterMs: 10,
    });

  it("a wait whose tries the store refuses as contended keeps waiting and is granted", async () => {
    const { deps, waiters } = setup();
    let tries = 0;
    const granted = await untilGranted<Answer>(
      deps,
      request(5_000),
      () => {
        tries += 1;
        return tries <= 3
          ? Promise.reject(contended())
          : Promise.resolve({ granted: true, lockId: "L4" });
      },
      unexpected,
    );
    expect(granted).toEqual({ granted: true, lockId: "L4" });
    expect(tries).toBe(4);
    expect(waiters.list(key.resource)).toEqual([]);
  });

  it("a wait contended until waitMs ends times out, trying again after the short pause", async () => {
    const { deps, waiters } = setup();
    const store = failing(contended());
    await expect(
      untilGranted<Answer>(deps, request(200), store.attempt, unexpected),
    ).rejects.toBeInstanceOf(LockTimeoutError);
    // It paused about retryAfterMs (10 ms) between tries, not RETRY_MAX_MS.
    expect(store.tries()).toBeGreaterThanOrEqual(3);
    expect(waiters.list(key.resource)).toEqual([]);
  });

  it("a wait goes on through a try Redis Cluster redirected until the client gave up", async () => {
    const { deps } = setup();
    // What the Redis store throws when every try met a slot being moved (decision 0231).
    const redirected = new LockUnavailableError("Redis Cluster redirected acquire", {
      retryAfterMs: 20,
    });
    let tries = 0;
    const granted = await untilGranted<Answer>(
      deps,
      request(5_000),
      () => {
        tries += 1;
        return tries <= 2
          ? Promise.reject(redirected)
          : Promise.resolve({ granted: true, lockId: "L3" });
      },
      unexpected,
    );
    expect(granted).toEqual({ granted: true, lockId: "L3" });
    expect(tries).toBe(3);
    await expect(
      untilGranted<Answer>(deps, request(0), () => Promise.reject(redirected), unexpected),
    ).rejects.toBe(redirected);
  });

  it("after a refusal, a wait goes on through an unknown outcome once its clean-up answered (decision 0235)", async () => {
    const { deps } = setup();
    const unknown = (cleanedUp: boolean) =>
      withCleanup(
        new OutcomeUnknownError("BBBBBBBBBBBBBBBBBBBBBB", "acquire"),
        Promise.resolve(cleanedUp),
      );
    const script = (answers: (() => Promise<Answer>)[]) => {
      let tries = 0;
      return {
        attempt: () => answers[Math.min(tries++, answers.length - 1)]!(),
        tries: () => tries,
      };
    };
    const refusal = () => Promise.resolve<Answer>({ granted: false, retryAfterMs: 10 });
    const goesOn = script([
      refusal,
      () => Promise.reject(unknown(true)),
      () => Promise.resolve({ granted: true, lockId: "L3" }),
    ]);
    await expect(
      untilGranted<Answer>(deps, request(5_000), goesOn.attempt, unexpected),
    ).resolves.toEqual({ granted: true, lockId: "L3" });
    expect(goesOn.tries()).toBe(3);
    // On the first try (it may have re-entered a read or write lock held), or after a
    // clean-up that gave up, it ends with the error.
    const first = unknown(true);
    const atFirst = script([() => Promise.reject(first)]);
    await expect(
      untilGranted<Answer>(deps, request(5_000), atFirst.attempt, unexpected),
    ).rejects.toBe(first);
    const givenUp = unknown(false);
    const gaveUp = script([refusal, () => Promise.reject(givenUp)]);
    await expect(
      untilGranted<Answer>(deps, request(5_000), gaveUp.attempt, unexpected),
    ).rejects.toBe(givenUp);
    expect(gaveUp.tries()).toBe(2);
  });

  it("a wait whose store stays unreachable until waitMs ends fails with the store's error, not a timeout", async () => {
    const { deps, waiters } = setup();
    // What the Redis store throws when the call was not sent (no connection).
    const unreachable = new LockUnavailableError("Redis is unreachable, so acquire was not sent", {
      retryAfterMs: 50,
    });
    const store = failing(unreachable);
    await expect(untilGranted<Answer>(deps, request(300), store.attempt, unexpected)).rejects.toBe(
      unreachable,
    );
    expect(store.tries()).toBeGreaterThanOrEqual(3);
    expect(waiters.list(key.resource)).toEqual([]);
  });

  it("a try refused as contended answers with that error; other refusals still end a wait", async () => {
    const { deps } = setup();
    await expect(
      untilGranted<Answer>(deps, request(0), () => Promise.reject(contended()), unexpected),
    ).rejects.toMatchObject({ reason: "contended" });
    const down = new LockUnavailableError("MySQL tier: acquire failed");
    const store = failing(down);
    await expect(
      untilGranted<Answer>(deps, request(5_000), store.attempt, unexpected),
    ).rejects.toBe(down);
    expect(store.tries()).toBe(1);
  });

  it("a grant made after the caller went away is released and answered as cancelled", async () => {
    for (const waitMs of [0, 5_000]) {
      const { deps, waiters } = setup();
      const connection = new AbortController();
      const released: string[] = [];
      const pending = untilGranted<Answer>(
        deps,
        request(waitMs, connection.signal),
        () => {
          // The connection closes while the store is granting.
          connection.abort();
          return Promise.resolve({ granted: true, lockId: "L1" });
        },
        (grant) => {
          released.push(grant.lockId);
          return Promise.resolve();
        },
      );
      await expect(pending).rejects.toBeInstanceOf(WaitCancelledError);
      expect(released).toEqual(["L1"]);
      expect(waiters.list(key.resource)).toEqual([]);
    }
  });

  it("a grant nobody can receive whose release fails still answers cancelled", async () => {
    const { deps } = setup();
    const connection = new AbortController();
    const pending = untilGranted<Answer>(
      deps,
      request(0, connection.signal),
      () => {
        connection.abort();
        return Promise.resolve({ granted: true, lockId: "L1" });
      },
      () => Promise.reject(new Error("store down")),
    );
    await expect(pending).rejects.toBeInstanceOf(WaitCancelledError);
  });
});
