import { afterAll, beforeAll, expect, it } from "vitest";
import { createContextInner } from "../src/context.js";
import { RELEASE_CHANNEL } from "../src/locks/redis-release-bridge.js";
import { createCaller } from "../src/routers/_app.js";
import { registerResource, startHarness, uid, type Harness } from "./support/harness.js";

let first: Harness;
let second: Harness;

beforeAll(async () => {
  first = await startHarness({ releaseBridge: true });
  second = await startHarness({ releaseBridge: true, shareWith: first });
});
afterAll(async () => {
  await second?.close();
  await first?.close();
});

it("wakes a waiter on another server instance through Redis pub/sub", async () => {
  const tenant = await first.tenant();
  const resource = await registerResource(tenant);
  const key = { resource, businessKey: `x-${uid()}` };
  const viaFirst = tenant.caller();
  const grant = await viaFirst.lock.acquire({ ...key, ownerId: "holder", leaseMs: 20_000 });
  if (!grant.granted) throw new Error("expected a grant");
  // The same tenant key works on the second instance (shared database).
  const viaSecond = createCaller(
    createContextInner(second.services, { apiKey: tenant.key, clientId: "other" }),
  );
  // Let the waiter make its first attempt and go to sleep (re-check cap: 2 s).
  const started = performance.now();
  const waiting = viaSecond.lock.acquire({ ...key, ownerId: "waiter", waitMs: 10_000 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await viaFirst.lock.release({ ...key, lockId: grant.lockId, tier: grant.tier });
  expect((await waiting).granted).toBe(true);
  // Under the 2 s re-check: only the pub/sub notification can have woken it this early.
  expect(performance.now() - started).toBeLessThan(1_700);
});

it("announces a release to the other instances only when a caller was refused the key", async () => {
  // What the instances publish on the release channel, as another instance would read it.
  const listener = first.redis.client();
  const messages: string[] = [];
  listener.on("message", (_channel: string, message: string) => messages.push(message));
  await listener.subscribe(RELEASE_CHANNEL);
  try {
    const tenant = await first.tenant();
    const resource = await registerResource(tenant);
    const viaFirst = tenant.caller();
    const viaSecond = createCaller(
      createContextInner(second.services, { apiKey: tenant.key, clientId: "other" }),
    );
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
    const deadline = Date.now() + 5_000;
    while (!messages.some((m) => m.includes(watched)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(messages.some((m) => m.includes(watched))).toBe(true);
    // Published in order: the quiet release, a turn earlier, would have arrived first.
    expect(messages.some((m) => m.includes("quiet-"))).toBe(false);
  } finally {
    listener.disconnect();
  }
});
