import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually } from "./support/fleet.js";
import {
  registerResource,
  startHarness,
  uid,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";

// A blocking acquire (mutex, semaphore, write lock) one of whose tries loses its reply: the server's Redis freezes (SIGSTOP)
// with the try in flight, so the store reports the outcome unknown after its 1 s deadline
// and cleans the maybe-grant up by lockId in the background. Here the holder's lease runs out
// while Redis is frozen, so the try does grant once Redis runs again, and the clean-up
// removes that grant. The wait goes on once the clean-up answered (docs/decisions/0235) and
// is granted anew, fenced above the lost grant; before, it ended with OUTCOME_UNKNOWN.

let h: Harness;
let tenant: TenantHandle;
beforeAll(async () => {
  h = await startHarness();
  tenant = await h.tenant();
});
afterAll(async () => {
  await h?.close();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const KINDS = ["mutex", "semaphore", "write lock"] as const;
type Kind = (typeof KINDS)[number];

/** Acquires `key` as `kind` through `caller`. */
function acquire(
  caller: ReturnType<TenantHandle["caller"]>,
  kind: Kind,
  input: {
    resource: string;
    businessKey: string;
    ownerId: string;
    leaseMs: number;
    waitMs?: number;
  },
) {
  if (kind === "mutex") return caller.lock.acquire(input);
  if (kind === "semaphore") return caller.semaphore.acquire(input);
  return caller.rwlock.acquireWrite(input);
}

for (const kind of KINDS) {
  it(`a ${kind} wait goes on after a try whose outcome was unknown, once its clean-up answered`, async () => {
    const resource = await registerResource(
      tenant,
      kind === "mutex" ? {} : kind === "semaphore" ? { kind, permits: 1 } : { kind: "rwlock" },
    );
    const key = { resource, businessKey: `unknown-${uid()}` };
    const holder = tenant.caller({ clientId: "holder" });
    const waiter = tenant.caller({ clientId: "waiter" });
    // Not renewed: the lease runs out 1.5 s from now, and the waiter re-checks by then.
    const held = await acquire(holder, kind, { ...key, ownerId: "h", leaseMs: 1_500 });
    if (!held.granted) throw new Error("expected a grant");

    // A short lease: the clean-up tries again every 500 ms (a quarter of it).
    const waiting = acquire(waiter, kind, { ...key, ownerId: "w", leaseMs: 2_000, waitMs: 20_000 });
    let settled: unknown = null;
    waiting.then(
      (answer) => (settled = answer),
      (error: unknown) => (settled = error),
    );
    // The first try was refused (the key is held); the next one goes out within 1.5 s.
    await pause(300);
    expect(settled).toBeNull();
    h.redis.pause();
    // That try meets the frozen Redis and is reported unknown 1 s later.
    await pause(2_400);
    h.redis.resume();

    const granted = await waiting;
    if (!granted.granted) throw new Error("the waiter was not granted");
    expect(BigInt(granted.fence!)).toBeGreaterThan(BigInt(held.fence!));
    // The lost try was recorded unknown, under another lockId than the grant.
    let unknown: { lockId: string | null }[] = [];
    const recorded = await eventually(async () => {
      unknown = (await waiter.event.search({ resource, type: "outcome-unknown" })).events;
      return unknown.length > 0;
    }, 15_000);
    expect(recorded).toBe(true);
    expect(unknown.map((event) => event.lockId)).not.toContain(granted.lockId);
    const { holders } = await waiter.holder.list(key);
    expect(holders.map((lease) => lease.lockId)).toEqual([granted.lockId]);
  }, 60_000);
}
