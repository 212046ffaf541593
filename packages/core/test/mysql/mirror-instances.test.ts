import { afterAll, beforeAll, expect, it } from "vitest";
import { LeaseMirror } from "../../src/tier/lease-mirror.js";
import { uniqueResource } from "../support/ids.js";
import {
  countingPool,
  extend,
  grant,
  lockIdOf,
  mirrorRowOf,
  release,
  type Lease,
} from "./mirror-events.js";
import { openMysqlTarget, type MysqlTarget } from "./mysql-target.js";

// Two lease mirrors on one table, as two server instances run them: a lease granted through
// one and renewed or released through the other (its client reconnected), against a real
// MariaDB (docs/decisions/0221).

let target: MysqlTarget;

beforeAll(async () => {
  target = await openMysqlTarget();
});
afterAll(async () => {
  await target.close();
});

const rowOf = (resource: string, businessKey: string) =>
  mirrorRowOf(target.admin, resource, businessKey);

/** A mirror on the real pool that counts the statements it sends. */
function countingMirror(): { mirror: LeaseMirror; statements: () => number } {
  const counted = countingPool(target.admin);
  return {
    mirror: new LeaseMirror(counted.pool, { clockMarginMs: 0 }),
    statements: counted.statements,
  };
}

/**
 * Two instances' mirrors and a fresh resource; `a` has written the row of `granted`, a lease
 * of key "k" (`b` saw nothing of it).
 */
async function twoInstances(granted: Omit<Lease, "resource"> = { businessKey: "k" }) {
  const a = new LeaseMirror(target.admin, { clockMarginMs: 0 });
  const b = new LeaseMirror(target.admin, { clockMarginMs: 0 });
  const resource = uniqueResource();
  a.record(grant({ resource, ...granted }, 60_000));
  await a.flush();
  return {
    b,
    resource,
    close: async () => {
      await a.close();
      await b.close();
    },
  };
}

it("deletes the row of a lease granted through another instance when it is released here", async () => {
  const { b, resource, close } = await twoInstances();
  expect((await rowOf(resource, "k"))?.lockId).toBe(lockIdOf("k"));
  b.record(release({ resource, businessKey: "k" }));
  await b.flush();
  expect(await rowOf(resource, "k")).toBeNull();
  await close();
});

it("leaves the key's next lease's row when an earlier lease is released here", async () => {
  const { b, resource, close } = await twoInstances({ businessKey: "k", lease: 2, fence: "9" });
  b.record(release({ resource, businessKey: "k", lease: 1, fence: "8" }));
  await b.flush();
  expect((await rowOf(resource, "k"))?.lockId).toBe(lockIdOf("k", 2));
  await close();
});

it("deletes the row of a lease renewed here and released here, granted elsewhere", async () => {
  const { b, resource, close } = await twoInstances();
  // Renewed and released through b within one of b's batches.
  b.record(extend({ resource, businessKey: "k" }, 90_000));
  b.record(release({ resource, businessKey: "k" }));
  await b.flush();
  expect(await rowOf(resource, "k")).toBeNull();
  await close();
});

it("sends nothing for a lease granted, renewed and released here between two batches", async () => {
  const { mirror, statements } = countingMirror();
  const lease = { resource: uniqueResource(), businessKey: "k" };
  mirror.record(grant(lease, 60_000));
  mirror.record(extend(lease, 60_000));
  mirror.record(release(lease));
  await mirror.flush();
  expect(statements()).toBe(0);
  await mirror.close();
});
