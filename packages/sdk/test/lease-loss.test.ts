import { afterAll, beforeAll, expect, test } from "vitest";
import {
  fencedUpdate,
  LeaseLostError,
  LockUnavailableError,
  OutcomeUnknownError,
  compareFences,
  type Lock,
} from "../src/index.js";
import { createLedger, type Ledger } from "./support/ledger.js";
import { startStack, type Stack } from "./support/stack.js";
import { delay, until } from "./support/until.js";

let stack: Stack;
let ledger: Ledger;

beforeAll(async () => {
  stack = await startStack();
  ledger = await createLedger(stack.db.url);
});

afterAll(async () => {
  stack?.redis.resume();
  await ledger?.pool.end();
  await stack?.close();
});

test("Redis frozen: the holder's signal aborts before anyone else is granted the key; its late fenced write is stale", async () => {
  const resource = await stack.resource("loss", { defaultLeaseMs: 2_000 });
  await ledger.insert(1, 0);
  const a = stack.client({ safetyMarginMs: 300 });
  const b = stack.client();

  const lockA = await a.acquire(resource, "order-1", { leaseMs: 2_000 });
  let abortedAtMs = 0;
  lockA.signal.addEventListener("abort", () => {
    abortedAtMs = Date.now();
  });
  // Renewals work while Redis answers.
  await until(() => lockA.renewals > 0, 3_000);
  expect(lockA.held).toBe(true);

  stack.redis.pause();
  // Another client keeps trying; it gets the key only once the server has moved to MySQL
  // and A's mirrored Redis lease has expired there.
  let lockB: Lock | null = null;
  const started = Date.now();
  while (!lockB) {
    expect(Date.now() - started).toBeLessThan(20_000);
    try {
      // A 10 s lease and waits under a third of it: the grant is not re-confirmed by a
      // renewal, so its expiry minus its lease is the instant the store granted it.
      lockB = await b.acquire(resource, "order-1", { leaseMs: 10_000, waitMs: 3_000 });
    } catch (error) {
      // Redis frozen and not yet degraded: the server cannot say; try again.
      if (!(error instanceof OutcomeUnknownError || error instanceof LockUnavailableError)) {
        if (!(error instanceof Error && error.name === "LockTimeoutError")) throw error;
      }
      await delay(100);
    }
  }
  // When the store granted B (store clock = this host's clock).
  const grantedAtMs = lockB.expiresAt - 10_000;
  expect(lockB.renewals).toBe(0);
  expect(lockB.tier).toBe("mysql");
  expect(lockA.signal.aborted).toBe(true);
  expect(lockA.signal.reason).toBeInstanceOf(LeaseLostError);
  expect(abortedAtMs).toBeGreaterThan(0);
  expect(abortedAtMs).toBeLessThan(grantedAtMs);
  // The new grant's fence is newer (epoch bumped on the switch to MySQL).
  expect(compareFences(lockB.fence!, lockA.fence!)).toBeGreaterThan(0);

  // B writes first; A, a late holder that ignored its signal, comes back stale.
  const byB = await fencedUpdate(ledger.pool, lockB, {
    table: ledger.table,
    set: { value: 2 },
    where: { id: 1 },
  });
  expect(byB.outcome).toBe("applied");
  const byA = await fencedUpdate(ledger.pool, lockA, {
    table: ledger.table,
    set: { value: 1 },
    where: { id: 1 },
  });
  expect(byA).toEqual({ outcome: "stale", currentFence: lockB.fence });
  expect(await ledger.value(1)).toBe(2);

  // The stale writer was reported to the server (audit: stale-fence).
  await until(
    async () => {
      const page = await stack.admin.event.search.query({ resource, type: "stale-fence" });
      return page.events.find((event) => event.fence === lockA.fence);
    },
    10_000,
    100,
    "stale-fence audit event",
  );
  await lockB.release();
  await lockA.release();
  stack.redis.resume();
});
