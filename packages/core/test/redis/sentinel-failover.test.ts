import { expect, test } from "vitest";
import {
  LockUnavailableError,
  compareFences,
  type Grant,
  type RedisLockStore,
} from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, uniqueResource } from "../support/ids.js";
import { useSentinelStore } from "../support/sentinel-store.js";

const fixture = useSentinelStore();

function granted(result: Awaited<ReturnType<RedisLockStore["acquire"]>>): Grant {
  if (!result.granted) throw new Error("not granted");
  return result;
}

test("after a failover every fence exceeds those granted before, and live leases stay held", async () => {
  const resource = uniqueResource();
  const before: string[] = [];
  for (let i = 0; i < 50; i += 1) {
    const grant = granted(
      await fixture.store.acquire({
        resource,
        businessKey: "hot",
        holder: holder(),
        leaseMs: 5_000,
      }),
    );
    before.push(grant.fence!);
    await fixture.store.release({ resource, businessKey: "hot", lockId: grant.lockId });
  }
  // Acknowledged by both replicas, so the promoted one has it.
  const live = granted(
    await fixture.store.acquire({
      resource,
      businessKey: "live",
      holder: holder("keeper"),
      leaseMs: 30_000,
      waitReplicas: 2,
    }),
  );
  const epochBefore = fixture.epochSource.epoch;

  await fixture.group.failover({ how: "kill" });

  const after = await eventually(async () =>
    granted(
      await fixture.store.acquire({
        resource,
        businessKey: "hot",
        holder: holder(),
        leaseMs: 5_000,
      }),
    ),
  );
  for (const fence of [...before, live.fence!])
    expect(compareFences(after.fence!, fence)).toBeGreaterThan(0);
  expect(fixture.epochSource.epoch).toBeGreaterThan(epochBefore);
  expect(fixture.epochSource.reasons.at(-1)).toMatch(/new master/);

  const contender = await fixture.store.acquire({
    resource,
    businessKey: "live",
    holder: holder("other"),
    leaseMs: 1_000,
  });
  expect(contender.granted).toBe(false);
  expect((await fixture.store.inspect({ resource, businessKey: "live" }))?.lockId).toBe(
    live.lockId,
  );
});

test("no durable epoch during a failover means no grants on the new master, until it is back", async () => {
  const resource = uniqueResource();
  granted(
    await fixture.store.acquire({ resource, businessKey: "k", holder: holder(), leaseMs: 1_000 }),
  );
  fixture.epochSource.down = true;
  await fixture.group.failover({ how: "command" });
  const refused = await eventually(async () => {
    const outcome = await fixture.store
      .acquire({ resource, businessKey: "k2", holder: holder(), leaseMs: 1_000 })
      .then(
        () => "granted",
        (e: unknown) => e,
      );
    // While reconnecting the client itself refuses; once on the new master, the epoch does.
    if (!(outcome instanceof LockUnavailableError) || !/fencing epoch/.test(outcome.message)) {
      throw new Error(`expected an epoch refusal, got ${String(outcome)}`);
    }
    return outcome;
  });
  expect(refused).toBeInstanceOf(LockUnavailableError);
  expect(refused.reason).toBe("fencing-epoch");
  fixture.epochSource.down = false;
  const grant = granted(
    await fixture.store.acquire({ resource, businessKey: "k2", holder: holder(), leaseMs: 1_000 }),
  );
  expect(Number(grant.fence) / 2 ** 33).toBeGreaterThanOrEqual(fixture.epochSource.epoch);
});
