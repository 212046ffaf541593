import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { LockUnavailableError } from "../src/index.js";
import { startStack, uid, type Stack } from "./support/stack.js";

// A resource's `waitReplicas` through the SDK (decision 0222). The stack's Redis is standalone,
// with no replica: a grant that needs one is undone on the server, and the SDK reports it as
// LockUnavailableError (the key is not held), for every kind.

let stack: Stack;

const NOT_ACKNOWLEDGED = /reached 0 of the 1 replicas/;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

describe("waitReplicas through the SDK", () => {
  test("a lock, a permit and a read or write grant no replica acknowledged are not held", async () => {
    const warden = stack.client();
    const mutex = await stack.resource("replicated", { waitReplicas: 1 });
    const semaphore = await stack.resource("replicated-sem", {
      kind: "semaphore",
      permits: 1,
      waitReplicas: 1,
    });
    const rwlock = await stack.resource("replicated-rw", { kind: "rwlock", waitReplicas: 1 });
    const key = `k-${uid()}`;

    const attempts: Array<[string, () => Promise<unknown>]> = [
      ["lock", () => warden.tryAcquire(mutex, key)],
      ["permit", () => warden.semaphore(semaphore, key).tryAcquire()],
      ["write", () => warden.rwLock(rwlock, key).tryWrite()],
      ["read", () => warden.rwLock(rwlock, key).tryRead()],
    ];
    for (const [what, attempt] of attempts) {
      const outcome = await attempt().then(
        () => new Error(`${what}: expected a refusal`),
        (error: unknown) => error,
      );
      expect(outcome, what).toBeInstanceOf(LockUnavailableError);
      expect((outcome as Error).message, what).toMatch(NOT_ACKNOWLEDGED);
      expect((outcome as LockUnavailableError).reason, what).toBe("replicas");
    }
    // Nothing is held on any of the keys.
    expect(await warden.inspect(mutex, key)).toBeNull();
    expect(await warden.semaphore(semaphore, key).inspect()).toMatchObject({ inUse: 0 });
    expect(await warden.rwLock(rwlock, key).inspect()).toMatchObject({
      writer: null,
      readers: [],
    });
  });
});
