import { afterAll, beforeAll, expect, it } from "vitest";
import { startHarness, uid, type Harness } from "./support/harness.js";

async function eventually(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not true within ${timeoutMs} ms`);
}

let a: Harness;
let b: Harness;
beforeAll(async () => {
  a = await startHarness({ fleet: true });
  b = await startHarness({ fleet: true, shareWith: a });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

it("statistics an instance gathered while Redis was down reach the others once it is back", async () => {
  const resource = `outage:${uid()}`;
  const acquiresOn = (h: Harness) => h.services.stats.totals(600).get(resource)?.acquires ?? 0;
  a.services.stats.recordAcquire(resource, "granted", 2);
  await eventually(() => acquiresOn(b) === 1, 10_000);

  await a.redis.kill9();
  for (let i = 0; i < 5; i += 1) a.services.stats.recordAcquire(resource, "granted", 2);
  // A's sends fail for a few seconds; B sees nothing new, A keeps counting its own.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  expect(acquiresOn(b)).toBe(1);
  expect(acquiresOn(a)).toBe(6);

  await a.redis.restart();
  await eventually(() => acquiresOn(b) === 6, 20_000);
  expect(acquiresOn(a)).toBe(6);
}, 60_000);
