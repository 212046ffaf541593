import { Redis } from "ioredis";
import { expect, test } from "vitest";
import { NotHolderError, compareFences } from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, uniqueResource } from "../support/ids.js";
import { useSentinelStore } from "../support/sentinel-store.js";

// Replication is asynchronous: a grant the master acknowledged can die with it. This is the
// case fencing exists for (docs/design.md#fencing), reproduced for certain rather than by luck:
// the replicas are cut off from the master before the grant, so the promoted one never had it.

const fixture = useSentinelStore();

test("a grant lost in a failover is reissued on the new master with a greater fence, and its holder is told it lost it", async () => {
  const resource = uniqueResource();
  const key = { resource, businessKey: "settle" };
  // Warm: the epoch is bound and a fence minted on the first master.
  const warm = await fixture.store.acquire({ ...key, holder: holder(), leaseMs: 5_000 });
  if (!warm.granted) throw new Error("warm-up not granted");
  await fixture.store.release({ ...key, lockId: warm.lockId });

  const oldMaster = await fixture.group.currentMaster();
  const replicas = fixture.group.nodes.filter((node) => node !== oldMaster);
  // Frozen, then disconnected: what the master writes from now on reaches no replica, not
  // even a socket buffer a replica would read once thawed.
  for (const replica of replicas) replica.pause();
  const admin = new Redis(oldMaster.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await admin.connect();
    expect(Number(await admin.call("CLIENT", "KILL", "TYPE", "replica"))).toBe(replicas.length);
  } finally {
    admin.disconnect();
  }

  const lost = await fixture.store.acquire({ ...key, holder: holder("first"), leaseMs: 30_000 });
  if (!lost.granted) throw new Error("the first grant was refused");

  await oldMaster.kill9();
  for (const replica of replicas) replica.resume();

  // The new master never had the first grant: the key is free there, and a second holder
  // gets it while the first still believes it holds it.
  const second = await eventually(async () => {
    const result = await fixture.store.acquire({
      ...key,
      holder: holder("second"),
      leaseMs: 30_000,
    });
    if (!result.granted) throw new Error(`not granted: held by ${result.holder.clientId}`);
    return result;
  }, 30_000);
  expect((await fixture.group.currentMaster()).port).not.toBe(oldMaster.port);
  expect(second.lockId).not.toBe(lost.lockId);

  // What keeps the ledger safe: the second fence is greater, so a store that checks fences
  // refuses the first holder's late writes once the second has written.
  expect(compareFences(second.fence!, lost.fence!)).toBeGreaterThan(0);
  expect(fixture.epochSource.reasons.at(-1)).toMatch(/new master/);

  // And the first holder learns it at its next renewal or release.
  await expect(
    fixture.store.extend({ ...key, lockId: lost.lockId, leaseMs: 30_000 }),
  ).rejects.toEqual(
    expect.objectContaining({ constructor: NotHolderError, reason: "other-holder" }),
  );
  await expect(fixture.store.release({ ...key, lockId: lost.lockId })).rejects.toBeInstanceOf(
    NotHolderError,
  );
  expect((await fixture.store.inspect(key))?.lockId).toBe(second.lockId);
});
