import { afterAll, beforeAll, expect, it } from "vitest";
import { registerResource, startHarness, uid, type Harness } from "./support/harness.js";

// The value of one sample of the Prometheus text, or undefined when it is not exported.
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (ok(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not true within 10 s; last: ${JSON.stringify(last)}`);
}

let a: Harness;
let b: Harness;
beforeAll(async () => {
  a = await startHarness({ fleet: true, releaseBridge: true });
  b = await startHarness({ fleet: true, releaseBridge: true, shareWith: a });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

it("warden_long_holds counts holds past 3× expectedHoldMs on every instance of the fleet, and drops them on release", async () => {
  const tenant = await a.tenant();
  // 3× 1 s: long enough that the grants below are surely younger on a loaded box.
  const short = await registerResource(tenant, { expectedHoldMs: 1_000 });
  const roomy = await registerResource(tenant, { expectedHoldMs: 60_000 });
  const unset = await registerResource(tenant);
  const caller = tenant.caller();
  const grants = [];
  let lastGrantAt = 0;
  for (const [resource, keys] of [
    [short, 2],
    [roomy, 1],
    [unset, 1],
  ] as const) {
    for (let i = 0; i < keys; i += 1) {
      const key = { resource, businessKey: `k${i}-${uid()}` };
      const grant = await caller.lock.acquire({ ...key, ownerId: "o", leaseMs: 20_000 });
      if (!grant.granted) throw new Error("expected a grant");
      grants.push({ ...key, lockId: grant.lockId, tier: grant.tier });
      lastGrantAt = Date.now();
    }
  }
  const shortSeries = `warden_long_holds{resource="${short}",kind="mutex"}`;
  // Not yet 3× 1 s old right after the grants.
  expect(sample(await a.services.metrics.text(), shortSeries) ?? 0).toBe(0);
  await new Promise((resolve) => setTimeout(resolve, lastGrantAt + 3_400 - Date.now()));
  const onA = await a.services.metrics.text();
  expect(sample(onA, shortSeries)).toBe(2);
  expect(sample(onA, `warden_long_holds{resource="${roomy}",kind="mutex"}`)).toBeUndefined();
  expect(sample(onA, `warden_long_holds{resource="${unset}",kind="mutex"}`)).toBeUndefined();
  // B granted nothing and never read these resources: it learns the holds over the fleet
  // bus and the policies from the registry, and reports the same count.
  const onB = await eventually(
    () => b.services.metrics.text(),
    (text) => sample(text, shortSeries) === 2,
  );
  expect(sample(onB, `warden_long_holds{resource="${unset}",kind="mutex"}`)).toBeUndefined();

  const first = grants[0]!;
  await caller.lock.release(first);
  expect(sample(await a.services.metrics.text(), shortSeries)).toBe(1);
  await eventually(
    () => b.services.metrics.text(),
    (text) => sample(text, shortSeries) === 1,
  );
  for (const grant of grants.slice(1)) await caller.lock.release(grant);
  expect(sample(await a.services.metrics.text(), shortSeries)).toBeUndefined();
});
