import { afterAll, beforeAll, expect, it } from "vitest";
import { createContextInner } from "../src/context.js";
import { RELEASE_CHANNEL } from "../src/locks/redis-release-bridge.js";
import { createCaller } from "../src/routers/_app.js";
import {
  registerResource,
  startHarness,
  uid,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";

// Decision 0206: a Redis-tier release (mutex, semaphore, read-write lock) is published on the
// release channel only when a caller was refused the key (through any instance) since the
// last announced release; a quiet release wakes only its own instance's listeners.

let first: Harness;
let second: Harness;

const POLICY = {
  defaultLeaseMs: 5_000,
  maxLeaseMs: 20_000,
  maxRenewals: null,
  expectedHoldMs: null,
  degrade: true,
  localFallback: "deny",
  fair: false,
  waitReplicas: 0,
  description: "release interest test",
} as const;

beforeAll(async () => {
  first = await startHarness({ releaseBridge: true });
  second = await startHarness({ releaseBridge: true, shareWith: first });
});
afterAll(async () => {
  await second?.close();
  await first?.close();
});

/**
 * Runs `cycles` with a raw subscriber on the release channel (what another instance would
 * read), then checks that the `watched-` keys were published and the `quiet-` ones never.
 */
async function expectPublishedOnlyWatched(
  cycles: (tenant: TenantHandle, viaSecond: ReturnType<typeof createCaller>) => Promise<string>,
): Promise<void> {
  const listener = first.redis.client();
  const messages: string[] = [];
  listener.on("message", (_channel: string, message: string) => messages.push(message));
  await listener.subscribe(RELEASE_CHANNEL);
  try {
    const tenant = await first.tenant();
    const viaSecond = createCaller(
      createContextInner(second.services, { apiKey: tenant.key, clientId: "other" }),
    );
    const watched = await cycles(tenant, viaSecond);
    const deadline = Date.now() + 5_000;
    while (!messages.some((m) => m.includes(watched)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(messages.some((m) => m.includes(watched))).toBe(true);
    // Published in order: the quiet releases, earlier, would have arrived first.
    expect(messages.some((m) => m.includes("quiet-"))).toBe(false);
  } finally {
    listener.disconnect();
  }
}

it("announces a mutex release to the other instances only when a caller was refused the key", async () => {
  await expectPublishedOnlyWatched(async (tenant, viaSecond) => {
    const resource = await registerResource(tenant);
    const viaFirst = tenant.caller();
    const cycle = async (businessKey: string, refuse: boolean) => {
      const key = { resource, businessKey };
      const grant = await viaFirst.lock.acquire({ ...key, ownerId: "holder", leaseMs: 20_000 });
      if (!grant.granted) throw new Error("expected a grant");
      if (refuse) {
        const tried = await viaSecond.lock.acquire({ ...key, ownerId: "other", leaseMs: 1_000 });
        expect(tried.granted).toBe(false);
      }
      await viaFirst.lock.release({ ...key, lockId: grant.lockId, tier: grant.tier });
    };
    await cycle(`quiet-${uid()}`, false);
    const watched = `watched-${uid()}`;
    await cycle(watched, true);
    return watched;
  });
});

it("announces a semaphore release to the other instances only when a caller was refused permits", async () => {
  await expectPublishedOnlyWatched(async (tenant, viaSecond) => {
    const resource = `sem:${uid()}`;
    const viaFirst = tenant.caller();
    await viaFirst.resource.create({ ...POLICY, name: resource, kind: "semaphore", permits: 1 });
    const cycle = async (businessKey: string, refuse: boolean) => {
      const key = { resource, businessKey };
      const grant = await viaFirst.semaphore.acquire({
        ...key,
        ownerId: "holder",
        leaseMs: 20_000,
      });
      if (!grant.granted) throw new Error("expected a grant");
      if (refuse) {
        const tried = await viaSecond.semaphore.acquire({ ...key, ownerId: "other" });
        expect(tried.granted).toBe(false);
      }
      await viaFirst.semaphore.release({ ...key, lockId: grant.lockId, tier: grant.tier });
    };
    await cycle(`quiet-${uid()}`, false);
    const watched = `watched-${uid()}`;
    await cycle(watched, true);
    return watched;
  });
});

it("announces a read-write lock release to the other instances only when a caller was refused the key", async () => {
  await expectPublishedOnlyWatched(async (tenant, viaSecond) => {
    const resource = `rw:${uid()}`;
    const viaFirst = tenant.caller();
    await viaFirst.resource.create({ ...POLICY, name: resource, kind: "rwlock" });
    const hold = async (key: { resource: string; businessKey: string }, mode: "read" | "write") => {
      const grant =
        mode === "read"
          ? await viaFirst.rwlock.acquireRead({ ...key, ownerId: "holder", leaseMs: 20_000 })
          : await viaFirst.rwlock.acquireWrite({ ...key, ownerId: "holder", leaseMs: 20_000 });
      if (!grant.granted) throw new Error("expected a grant");
      return grant;
    };
    // Quiet: a read and a write, each released with nobody refused.
    for (const mode of ["read", "write"] as const) {
      const key = { resource, businessKey: `quiet-${mode}-${uid()}` };
      const grant = await hold(key, mode);
      await viaFirst.rwlock.release({ ...key, lockId: grant.lockId, tier: grant.tier });
    }
    // Watched: a reader held through the first instance refuses a writer on the second.
    const watched = `watched-${uid()}`;
    const key = { resource, businessKey: watched };
    const grant = await hold(key, "read");
    const tried = await viaSecond.rwlock.acquireWrite({ ...key, ownerId: "other" });
    expect(tried).toMatchObject({ granted: false, reason: "read-held" });
    await viaFirst.rwlock.release({ ...key, lockId: grant.lockId, tier: grant.tier });
    return watched;
  });
});
