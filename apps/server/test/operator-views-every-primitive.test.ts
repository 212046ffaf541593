import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnection } from "mysql2/promise";
import { runCli } from "../src/cli/run-cli.js";
import type { HttpServerHandle } from "../src/http/server.js";
import { expectCode } from "./support/expect-trpc.js";
import { eventually } from "./support/fleet.js";
import { startHarness, uid, type Harness, type TenantHandle } from "./support/harness.js";
import { serveHarness } from "./support/lock-client.js";

// The operator views count every primitive (docs/decisions/0194), on real Redis and
// MariaDB: retire refused while a permit, a read grant or a write grant lives (nothing
// changed), allowed once released; warden-admin refuses them too; warden_live_locks and
// warden_long_holds (scraped from a real server's /metrics) and the overview's long holds
// include semaphore permits and read-write grants, on every instance of the fleet.

let a: Harness;
let b: Harness;
let http: HttpServerHandle;
let tenant: TenantHandle;

beforeAll(async () => {
  a = await startHarness({ fleet: true, releaseBridge: true });
  b = await startHarness({ fleet: true, releaseBridge: true, shareWith: a });
  http = await serveHarness(a);
  tenant = await a.tenant();
});
afterAll(async () => {
  await http?.close();
  await b?.close();
  await a?.close();
});

const POLICY = {
  defaultLeaseMs: 20_000,
  maxLeaseMs: 30_000,
  maxRenewals: null,
  expectedHoldMs: null,
  degrade: true,
  localFallback: "deny",
  fair: false,
  waitReplicas: 0,
  description: "operator views test",
} as const;

type Kind = "mutex" | "semaphore" | "rwlock";

async function register(kind: Kind, expectedHoldMs: number | null = null): Promise<string> {
  const name = `${kind}.${uid()}`;
  await tenant.caller().resource.create({
    ...POLICY,
    name,
    kind,
    expectedHoldMs,
    ...(kind === "semaphore" ? { permits: 3 } : {}),
  });
  return name;
}

type Caller = ReturnType<TenantHandle["caller"]>;

/** Takes one hold of `resource` on `key` and returns how to end it. */
async function hold(
  caller: Caller,
  kind: Kind | "read" | "write",
  resource: string,
  businessKey: string,
): Promise<{ lockId: string; release(): Promise<unknown> }> {
  const key = { resource, businessKey, ownerId: `o-${uid()}` };
  const reply =
    kind === "mutex"
      ? await caller.lock.acquire(key)
      : kind === "semaphore"
        ? await caller.semaphore.acquire(key)
        : kind === "read"
          ? await caller.rwlock.acquireRead(key)
          : await caller.rwlock.acquireWrite(key);
  if (!reply.granted) throw new Error(`expected a grant, got ${JSON.stringify(reply)}`);
  const ref = { resource, businessKey, lockId: reply.lockId, tier: reply.tier };
  return {
    lockId: reply.lockId,
    release: () =>
      kind === "mutex"
        ? caller.lock.release(ref)
        : kind === "semaphore"
          ? caller.semaphore.release(ref)
          : caller.rwlock.release(ref),
  };
}

/** `warden-admin <args>` in-process on the harness's database. */
async function wardenAdmin(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    env: { DATABASE_URL: a.db.url },
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

/** Policy audit rows of `resource`, once every buffered audit event was written. */
async function policyEvents(resource: string): Promise<number> {
  await a.services.audit.flush();
  return a.prisma.lockEvent.count({ where: { resource, type: "policy" } });
}

/** Sample values of a Prometheus text by their full series text. */
function samples(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    found.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return found;
}

async function scrape(): Promise<Map<string, number>> {
  const response = await fetch(`${http.url}/metrics`);
  expect(response.status).toBe(200);
  return samples(await response.text());
}

describe("resource.retire and warden-admin resource retire, every kind", () => {
  for (const [kind, mode] of [
    ["semaphore", "semaphore"],
    ["rwlock", "read"],
    ["rwlock", "write"],
  ] as const) {
    it(`refuses while a ${mode === "semaphore" ? "permit" : `${mode} grant`} is held, changing nothing, and retires once it is released`, async () => {
      const caller = tenant.caller();
      const name = await register(kind);
      const held = await hold(caller, mode, name, "k");
      const before = await caller.resource.get({ name });
      const auditedBefore = await policyEvents(name);

      const refused = await expectCode(caller.resource.retire({ name }), "CONFLICT");
      expect(refused.message).toContain(`resource "${name}" has live locks`);
      const cli = await wardenAdmin("resource", "retire", name);
      expect(cli.code).toBe(1);
      expect(cli.err).toContain(`resource "${name}" is a ${kind}`);
      expect(cli.err).toContain("resource.retire");

      // Nothing changed: the policy, its audit, and the holder's grant.
      expect(await caller.resource.get({ name })).toEqual(before);
      expect(await policyEvents(name)).toBe(auditedBefore);
      if (kind === "semaphore") {
        const seen = await caller.semaphore.inspect({ resource: name, businessKey: "k" });
        expect(seen.holders.map((grant) => grant.lockId)).toEqual([held.lockId]);
      } else {
        const seen = await caller.rwlock.inspect({ resource: name, businessKey: "k" });
        const lockIds = [...(seen.writer ? [seen.writer] : []), ...seen.readers].map(
          (grant) => grant.lockId,
        );
        expect(lockIds).toEqual([held.lockId]);
      }

      await held.release();
      // warden-admin cannot see the Redis tier's grants of this kind: still refused.
      expect((await wardenAdmin("resource", "retire", name)).code).toBe(1);
      expect((await caller.resource.get({ name })).retiredAt).toBeNull();
      expect((await caller.resource.retire({ name })).retiredAt).not.toBeNull();
      expect(await policyEvents(name)).toBe(auditedBefore + 1);
    });
  }

  it("warden-admin names live MySQL-tier permits and read-write grants as live locks", async () => {
    const sem = await register("semaphore");
    const rw = await register("rwlock");
    const connection = await createConnection({ uri: a.db.url });
    try {
      await connection.query(
        "INSERT INTO mysql_semaphore_permit (resource, business_key, lock_id, client_id, owner_id, permits, fence, granted_at, expires_at) " +
          "VALUES (?, 'k', ?, 'c', 'o', 1, 1, NOW(3), NOW(3) + INTERVAL 1 MINUTE)",
        [sem, "S".repeat(18) + uid().slice(0, 4)],
      );
      await connection.query(
        "INSERT INTO mysql_rw_grant (resource, business_key, lock_id, mode, client_id, owner_id, fence, reentry, granted_at, expires_at) " +
          "VALUES (?, 'k', ?, 'read', 'c', 'o', 1, 1, NOW(3), NOW(3) + INTERVAL 1 MINUTE)",
        [rw, "R".repeat(18) + uid().slice(0, 4)],
      );
      for (const name of [sem, rw]) {
        const refused = await wardenAdmin("resource", "retire", name);
        expect(refused.code).toBe(1);
        expect(refused.err).toContain(`resource "${name}" has live locks`);
        expect(
          (await a.prisma.resource.findUniqueOrThrow({ where: { name } })).retiredAt,
        ).toBeNull();
      }
    } finally {
      await connection.query("DELETE FROM mysql_semaphore_permit WHERE resource = ?", [sem]);
      await connection.query("DELETE FROM mysql_rw_grant WHERE resource = ?", [rw]);
      await connection.end();
    }
  });

  it("warden-admin still retires a free mutex", async () => {
    const name = await register("mutex");
    expect(await wardenAdmin("resource", "retire", name)).toMatchObject({
      code: 0,
      out: `resource ${name} retired`,
    });
  });
});

describe("warden_live_locks and long holds, every kind", () => {
  it("counts leases, permit grants and read-write grants by resource and kind, on every instance, until released", async () => {
    const caller = tenant.caller();
    const mutex = await register("mutex");
    const sem = await register("semaphore");
    const rw = await register("rwlock");
    const holds = [
      await hold(caller, "mutex", mutex, "k"),
      await hold(caller, "semaphore", sem, "k"),
      await hold(caller, "semaphore", sem, "k"),
      await hold(caller, "read", rw, "r"),
      await hold(caller, "read", rw, "r"),
      await hold(caller, "write", rw, "w"),
    ];
    const series = (name: string, kind: Kind) =>
      `warden_live_locks{resource="${name}",kind="${kind}"}`;
    const onA = await scrape();
    expect(onA.get(series(mutex, "mutex"))).toBe(1);
    expect(onA.get(series(sem, "semaphore"))).toBe(2);
    expect(onA.get(series(rw, "rwlock"))).toBe(3);
    // B served none of them: it learns them over the fleet bus.
    expect(
      await eventually(async () => {
        const seen = samples(await b.services.metrics.text());
        return seen.get(series(sem, "semaphore")) === 2 && seen.get(series(rw, "rwlock")) === 3;
      }),
    ).toBe(true);
    for (const held of holds) await held.release();
    const after = await scrape();
    for (const [name, kind] of [
      [mutex, "mutex"],
      [sem, "semaphore"],
      [rw, "rwlock"],
    ] as const)
      expect(after.get(series(name, kind))).toBeUndefined();
    expect(
      await eventually(async () => {
        const seen = samples(await b.services.metrics.text());
        return !seen.has(series(sem, "semaphore")) && !seen.has(series(rw, "rwlock"));
      }),
    ).toBe(true);
  });

  it("reports permit and read-write holds past 3× expectedHoldMs in warden_long_holds and the overview", async () => {
    const caller = tenant.caller();
    const sem = await register("semaphore", 1_000);
    const rw = await register("rwlock", 1_000);
    const roomy = await register("rwlock", 60_000);
    const holds = [
      await hold(caller, "semaphore", sem, "k"),
      await hold(caller, "read", rw, "r"),
      await hold(caller, "write", rw, "w"),
      await hold(caller, "write", roomy, "w"),
    ];
    const grantedBy = Date.now();
    const series = (name: string, kind: Kind) =>
      `warden_long_holds{resource="${name}",kind="${kind}"}`;
    expect((await scrape()).get(series(rw, "rwlock")) ?? 0).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, grantedBy + 3_400 - Date.now()));
    const onA = await scrape();
    expect(onA.get(series(sem, "semaphore"))).toBe(1);
    expect(onA.get(series(rw, "rwlock"))).toBe(2);
    expect(onA.get(series(roomy, "rwlock"))).toBeUndefined();
    expect(
      await eventually(
        async () => samples(await b.services.metrics.text()).get(series(rw, "rwlock")) === 2,
      ),
    ).toBe(true);

    const operator = await a.operator("viewer");
    const overview = await operator.caller().stats.overview({});
    const long = overview.longHolds.filter((h) => [sem, rw, roomy].includes(h.resource));
    expect(long.map((h) => [h.resource, h.kind, h.mode]).sort()).toEqual(
      [
        [rw, "rwlock", "read"],
        [rw, "rwlock", "write"],
        [sem, "semaphore", null],
      ].sort(),
    );
    expect(overview.liveLocks).toBeGreaterThanOrEqual(4);

    for (const held of holds) await held.release();
    const after = await scrape();
    expect(after.get(series(sem, "semaphore"))).toBeUndefined();
    expect(after.get(series(rw, "rwlock"))).toBeUndefined();
  });
});

describe("the console's statistics, every kind", () => {
  it("counts semaphore and read-write acquires and hold times per resource, as a lock's", async () => {
    const caller = tenant.caller();
    for (const kind of ["semaphore", "read", "write"] as const) {
      const resource = await register(kind === "semaphore" ? "semaphore" : "rwlock");
      const held = await hold(caller, kind, resource, "k");
      if (kind === "write") {
        // A second writer is refused while the first holds the key.
        const refused = await caller.rwlock.acquireWrite({
          resource,
          businessKey: "k",
          ownerId: `o-${uid()}`,
        });
        expect(refused.granted).toBe(false);
      }
      await new Promise((resolve) => setTimeout(resolve, 150));
      await held.release();

      const operator = await a.operator("viewer");
      const series = await operator.caller().stats.series({ resource, windowSec: 60, stepSec: 60 });
      expect(series.points.at(-1), kind).toMatchObject({
        acquires: kind === "write" ? 2 : 1,
        granted: 1,
        refused: kind === "write" ? 1 : 0,
      });
      expect(series.points.at(-1)!.holdP50Ms, kind).toBeGreaterThanOrEqual(150);
      const holds = await operator.caller().stats.holdTimes({ resource });
      expect(holds.samples, kind).toBe(1);
    }
  });
});
