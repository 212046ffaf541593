import { afterAll, beforeAll, expect, it } from "vitest";
import { createContextInner } from "../src/context.js";
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
