import { startSentinelGroup, type SentinelGroup } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  RedisSemaphoreStore,
  compareFences,
  type PermitGrant,
  type PermitResult,
} from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, uniqueResource } from "../support/ids.js";
import { MemoryEpochSource } from "../support/memory-epoch-source.js";

let group: SentinelGroup;
let store: RedisSemaphoreStore;
const epochSource = new MemoryEpochSource();

beforeAll(async () => {
  group = await startSentinelGroup();
  store = await RedisSemaphoreStore.open({
    topology: { mode: "sentinel", sentinels: group.sentinels, masterName: group.masterName },
    epochSource,
  });
});

afterAll(async () => {
  await store?.close();
  await group?.stop();
});

function granted(result: PermitResult): PermitGrant {
  if (!result.granted) throw new Error(`not granted: ${JSON.stringify(result)}`);
  return result;
}

test("after a Redis failover every semaphore fence exceeds those granted before (a fresh epoch for the new master)", async () => {
  const resource = uniqueResource();
  const acquire = () =>
    store.acquire({
      resource,
      businessKey: "k",
      holder: holder(),
      leaseMs: 5_000,
      totalPermits: 3,
    });
  const before: string[] = [];
  for (let i = 0; i < 30; i += 1) {
    const grant = granted(await acquire());
    before.push(grant.fence!);
    await store.release(grant);
  }
  const epochBefore = epochSource.epoch;

  await group.failover({ how: "kill" });

  const after = await eventually(async () => granted(await acquire()));
  for (const fence of before) expect(compareFences(after.fence!, fence)).toBeGreaterThan(0);
  expect(epochSource.epoch).toBeGreaterThan(epochBefore);
  expect(epochSource.reasons.at(-1)).toMatch(/new master/);
});
