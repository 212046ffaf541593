import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import {
  LeaseMirror,
  type MirrorBatchReport,
  type LeaseMirrorOptions,
} from "../../src/tier/lease-mirror.js";
import { uniqueResource } from "../support/ids.js";
import { extend, grant, lockIdOf, mirrorRowOf, release } from "./mirror-events.js";
import { openMysqlTarget, type MysqlTarget } from "./mysql-target.js";

// A batch of the lease mirror that MySQL refuses is kept and written by the next one, under
// the changes recorded meanwhile (docs/decisions/0221). MySQL refuses for real here: the
// mirror's table is renamed away, so every statement gets ER_NO_SUCH_TABLE.

let target: MysqlTarget;

beforeAll(async () => {
  target = await openMysqlTarget();
});
afterAll(async () => {
  await target.close();
});
afterEach(async () => {
  await tableBack();
});

const rowOf = (resource: string, businessKey: string) =>
  mirrorRowOf(target.admin, resource, businessKey);

async function tableAway(): Promise<void> {
  await target.admin.query("RENAME TABLE redis_lease_mirror TO redis_lease_mirror_away");
}
async function tableBack(): Promise<void> {
  const [rows] = await target.admin.query("SHOW TABLES LIKE 'redis_lease_mirror_away'");
  if ((rows as unknown[]).length === 0) return;
  await target.admin.query("RENAME TABLE redis_lease_mirror_away TO redis_lease_mirror");
}

/**
 * A mirror on the real pool; `during` runs inside the first statement of the next batch,
 * before it reaches MySQL (a change recorded while a batch is in flight).
 */
function openMirror(options: LeaseMirrorOptions = {}) {
  const reports: MirrorBatchReport[] = [];
  let during: (() => Promise<void> | void) | undefined;
  const pool = new Proxy(target.admin, {
    get(real, property, receiver) {
      if (property !== "query") return Reflect.get(real, property, receiver) as unknown;
      return async (sql: string, values: unknown[]): Promise<unknown> => {
        const hook = during;
        during = undefined;
        await hook?.();
        return real.query(sql, values);
      };
    },
  });
  const mirror = new LeaseMirror(pool, { clockMarginMs: 0, ...options }, (report) =>
    reports.push(report),
  );
  return {
    mirror,
    reports,
    inFlight: (hook: () => Promise<void> | void) => {
      during = hook;
    },
  };
}

it("keeps a refused batch and writes it with the next one", async () => {
  const { mirror, reports } = openMirror();
  const lease = { resource: uniqueResource(), businessKey: "k", fence: "41" };
  const at = Date.now();
  mirror.record(grant(lease, 60_000, at));
  await tableAway();
  const refused = await mirror.flush().then(
    () => null,
    (error: unknown) => error,
  );
  expect((refused as { code?: string } | null)?.code).toBe("ER_NO_SUCH_TABLE");
  expect(reports).toEqual([{ outcome: "failed", error: refused, kept: 1, dropped: 0 }]);
  expect(mirror.stats).toEqual({
    written: 0,
    dropped: 0,
    batches: { ok: 0, failed: 1 },
    pending: 1,
  });

  await tableBack();
  await mirror.flush();
  expect(reports.at(-1)).toEqual({ outcome: "ok", rows: 1 });
  const row = await rowOf(lease.resource, "k");
  expect(row?.lockId).toBe(lockIdOf("k"));
  expect(row?.fence).toBe("41");
  expect(row?.expiresAtMs).toBeCloseTo(at + 60_000, -1);
  expect(mirror.stats).toEqual({
    written: 1,
    dropped: 0,
    batches: { ok: 1, failed: 1 },
    pending: 0,
  });
  await mirror.close();
});

it("writes a renewal recorded while the refused grant was in flight, with the lease's fence", async () => {
  const { mirror, inFlight } = openMirror();
  const lease = { resource: uniqueResource(), businessKey: "k", fence: "42" };
  mirror.record(grant(lease, 10_000));
  await tableAway();
  // The renewal is newer and stands for the key; it carries the lease's fence, so the next
  // batch inserts the row the refused grant never wrote.
  inFlight(() => mirror.record(extend(lease, 90_000)));
  await expect(mirror.flush()).rejects.toMatchObject({ code: "ER_NO_SUCH_TABLE" });

  await tableBack();
  await mirror.flush();
  const row = await rowOf(lease.resource, "k");
  expect(row?.fence).toBe("42");
  expect(row?.expiresAtMs).toBeCloseTo(Date.now() + 90_000, -3);
  await mirror.close();
});

it("does not bring back a refused grant whose lease ended, or was replaced, in flight", async () => {
  const { mirror, inFlight } = openMirror();
  const resource = uniqueResource();
  const released = { resource, businessKey: "released" };
  const replaced = { resource, businessKey: "replaced", fence: "5" };
  const next = { ...replaced, lease: 2, fence: "6" };
  mirror.record(grant(released, 60_000));
  mirror.record(grant(replaced, 60_000));
  await tableAway();
  inFlight(() => {
    mirror.record(release(released));
    mirror.record(release(replaced));
    mirror.record(grant(next, 60_000));
  });
  await expect(mirror.flush()).rejects.toMatchObject({ code: "ER_NO_SUCH_TABLE" });
  // Buffered: the released key's delete and the new lease's grant, nothing of the refused batch.
  expect(mirror.stats.pending).toBe(2);

  await tableBack();
  await mirror.flush();
  expect(await rowOf(resource, "released")).toBeNull();
  const row = await rowOf(resource, "replaced");
  expect(row?.lockId).toBe(lockIdOf("replaced", 2));
  expect(row?.fence).toBe("6");
  expect(mirror.stats.pending).toBe(0);
  await mirror.close();
});

it("never replaces a later lease's row with a kept grant of an earlier lease", async () => {
  const { mirror } = openMirror();
  const resource = uniqueResource();
  const earlier = { resource, businessKey: "k", fence: "7" };
  const later = { resource, businessKey: "k", lease: 2, fence: "9" };
  mirror.record(grant(earlier, 60_000));
  await tableAway();
  await expect(mirror.flush()).rejects.toMatchObject({ code: "ER_NO_SUCH_TABLE" });
  await tableBack();
  // Meanwhile the earlier lease ended through another instance, and the key's next lease was
  // granted and mirrored there (this mirror saw neither).
  const other = new LeaseMirror(target.admin, { clockMarginMs: 0 });
  other.record(grant(later, 30_000));
  await other.flush();
  await other.close();

  await mirror.flush();
  const row = await rowOf(resource, "k");
  expect(row?.lockId).toBe(lockIdOf("k", 2));
  expect(row?.fence).toBe("9");
  expect(row?.expiresAtMs).toBeCloseTo(Date.now() + 30_000, -3);
  // The same key's later lease still replaces an earlier one's row.
  mirror.record(grant({ ...later, lease: 3, fence: "10" }, 45_000));
  await mirror.flush();
  expect((await rowOf(resource, "k"))?.lockId).toBe(lockIdOf("k", 3));
  await mirror.close();
});

it("retries a refused delete, so an ended lease's row goes", async () => {
  const { mirror } = openMirror();
  const lease = { resource: uniqueResource(), businessKey: "k" };
  mirror.record(grant(lease, 60_000));
  await mirror.flush();
  expect(await rowOf(lease.resource, "k")).not.toBeNull();

  mirror.record(release(lease));
  await tableAway();
  await expect(mirror.flush()).rejects.toMatchObject({ code: "ER_NO_SUCH_TABLE" });
  await tableBack();
  expect(await rowOf(lease.resource, "k")).not.toBeNull();
  await mirror.flush();
  expect(await rowOf(lease.resource, "k")).toBeNull();
  await mirror.close();
});

it("lets go of a refused lease that ends before the next batch, and counts what a full buffer drops", async () => {
  const { mirror, reports, inFlight } = openMirror({ flushIntervalMs: 50, maxPending: 2 });
  const resource = uniqueResource();
  // Ends 150 ms from now: buffered (after the next 50 ms batch) but over before the retry.
  mirror.record(grant({ resource, businessKey: "ending" }, 60_000, Date.now() - 59_850));
  mirror.record(grant({ resource, businessKey: "a" }, 60_000));
  await tableAway();
  inFlight(async () => {
    mirror.record(grant({ resource, businessKey: "b" }, 60_000));
    mirror.record(grant({ resource, businessKey: "c" }, 60_000));
    await new Promise((resolve) => setTimeout(resolve, 200));
  });
  await expect(mirror.flush()).rejects.toMatchObject({ code: "ER_NO_SUCH_TABLE" });
  // b and c fill the buffer: "a" has no room, "ending" has no need.
  expect(reports.at(-1)).toMatchObject({ outcome: "failed", kept: 0, dropped: 1 });
  expect(mirror.stats).toMatchObject({ dropped: 1, pending: 2 });

  await tableBack();
  await mirror.flush();
  expect(await rowOf(resource, "ending")).toBeNull();
  expect(await rowOf(resource, "a")).toBeNull();
  expect(await rowOf(resource, "b")).not.toBeNull();
  expect(await rowOf(resource, "c")).not.toBeNull();
  await mirror.close();
});

it("goes on when its listener throws", async () => {
  const mirror = new LeaseMirror(target.admin, { clockMarginMs: 0 }, () => {
    throw new Error("listener");
  });
  const lease = { resource: uniqueResource(), businessKey: "k" };
  mirror.record(grant(lease, 60_000));
  await mirror.flush();
  expect(mirror.stats.written).toBe(1);
  expect(await rowOf(lease.resource, "k")).not.toBeNull();
  await mirror.close();
});
