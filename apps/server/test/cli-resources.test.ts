import { createPrismaClient, migrate, type PrismaClient } from "@warden/db";
import { createTestDatabase, type TestDatabase } from "@warden/testkit";
import { createConnection } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../src/cli/run-cli.js";
import { uid } from "./support/harness.js";

let db: TestDatabase;
let prisma: PrismaClient;
const tenant = `cli-${uid()}`;

beforeAll(async () => {
  db = await createTestDatabase();
  await migrate(db.url);
  prisma = createPrismaClient(db.url);
});
afterAll(async () => {
  await prisma?.$disconnect();
  await db?.drop();
});

/** Runs `warden <args>` in-process against the test database. */
async function warden(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    env: { DATABASE_URL: db.url },
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

async function policyEvents(resource: string) {
  return prisma.lockEvent.findMany({
    where: { resource, type: "policy" },
    orderBy: { id: "asc" },
    select: { actor: true, reason: true, tenantId: true },
  });
}

describe("warden-admin tenant / apikey / operator", () => {
  it("creates a key shown once, revokes it, and creates an operator with the given password", async () => {
    const owner = `acct-${uid()}`;
    expect((await warden("tenant", "create", owner, "--name", "Accounts", "--rps", "50")).out).toBe(
      `tenant ${owner} created (50 requests/s)`,
    );
    const made = await warden("apikey", "create", owner, "--name", "orders");
    expect(made.code).toBe(0);
    const [, key] = made.out.split("\n");
    const id = /^API key (\S+) for tenant/.exec(made.out)?.[1];
    expect(key).toMatch(/^wdn_/);
    const stored = await prisma.apiKey.findUniqueOrThrow({ where: { id: id! } });
    expect(stored).toMatchObject({ tenantId: owner, name: "orders", revokedAt: null });
    expect(JSON.stringify(stored)).not.toContain(key!);
    expect(await warden("apikey", "revoke", id!)).toMatchObject({ code: 0 });
    expect(await warden("apikey", "revoke", id!)).toMatchObject({ code: 1 });

    const out: string[] = [];
    const code = await runCli(["operator", "create", `op-${owner}`, "operator"], {
      env: { DATABASE_URL: db.url, WARDEN_OPERATOR_PASSWORD: "a long operator password" },
      out: (line) => out.push(line),
      err: () => {},
    });
    expect(code).toBe(0);
    expect(out.join("")).not.toContain("a long operator password");
    const operator = await prisma.operator.findUniqueOrThrow({
      where: { username: `op-${owner}` },
    });
    expect(operator.role).toBe("operator");
    const badRole = await warden("operator", "create", `op2-${owner}`, "superuser");
    expect(badRole.code).toBe(1);
    expect(badRole.err).toMatch(/^input: .*(viewer|operator|admin)/);
  });
});

describe("warden-admin resource …", () => {
  it("creates a resource with the given policy and the API's defaults, audited", async () => {
    expect((await warden("tenant", "create", tenant)).code).toBe(0);
    const name = `orders.settle-${uid()}`;
    const made = await warden(
      "resource",
      "create",
      tenant,
      name,
      "--default-lease-ms",
      "5000",
      "--fair",
      "true",
      "--expected-hold-ms",
      "2000",
      "--description",
      "settles orders",
    );
    expect(made).toMatchObject({ code: 0, err: "" });
    expect(made.out).toContain(`resource ${name} created for tenant ${tenant}`);
    const row = await prisma.resource.findUniqueOrThrow({ where: { name } });
    expect(row).toMatchObject({
      tenantId: tenant,
      defaultLeaseMs: 5_000,
      maxLeaseMs: 60_000,
      fair: true,
      expectedHoldMs: 2_000,
      localFallback: "deny",
      degrade: true,
      description: "settles orders",
      retiredAt: null,
    });
    const events = await policyEvents(name);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ tenantId: tenant });
    expect(events[0]?.actor).toMatch(/^cli:/);
  });

  it("refuses what the API refuses, with the field and the limit, and changes nothing", async () => {
    const name = `bad-${uid()}`;
    const tooLong = await warden("resource", "create", tenant, name, "--max-lease-ms", "70000");
    expect(tooLong.code).toBe(1);
    expect(tooLong.err).toMatch(/maxLeaseMs.*at most 60000/);
    const inverted = await warden(
      "resource",
      "create",
      tenant,
      name,
      "--default-lease-ms",
      "9000",
      "--max-lease-ms",
      "8000",
    );
    expect(inverted.code).toBe(1);
    expect(inverted.err).toContain("defaultLeaseMs must not exceed maxLeaseMs");
    const badName = await warden("resource", "create", tenant, "has space");
    expect(badName.code).toBe(1);
    expect(badName.err).toMatch(/^name: /);
    const notABoolean = await warden("resource", "create", tenant, name, "--fair", "yes");
    expect(notABoolean.code).toBe(2);
    expect(notABoolean.err).toContain('--fair must be true or false, not "yes"');
    const noTenant = await warden("resource", "create", `nobody-${uid()}`, name);
    expect(noTenant.code).toBe(1);
    expect(noTenant.err).toMatch(/tenant "nobody-.*" does not exist/);
    expect(await prisma.resource.count({ where: { name } })).toBe(0);
    expect(await policyEvents(name)).toEqual([]);
  });

  it("refuses a name that is taken", async () => {
    const name = `dup-${uid()}`;
    expect((await warden("resource", "create", tenant, name)).code).toBe(0);
    const again = await warden("resource", "create", tenant, name);
    expect(again.code).toBe(1);
    expect(again.err).toContain(`resource "${name}" already exists`);
  });

  it("updates only the flags given, keeps the lease order rule, and audits the change", async () => {
    const name = `upd-${uid()}`;
    await warden("resource", "create", tenant, name, "--default-lease-ms", "4000");
    const updated = await warden(
      "resource",
      "update",
      name,
      "--local-fallback",
      "allow",
      "--max-renewals",
      "3",
    );
    expect(updated.code).toBe(0);
    const row = await prisma.resource.findUniqueOrThrow({ where: { name } });
    expect(row).toMatchObject({ localFallback: "allow", maxRenewals: 3, defaultLeaseMs: 4_000 });
    const events = await policyEvents(name);
    expect(events).toHaveLength(2);
    expect(events[1]?.reason).toMatch(/localFallback/);
    expect(events[1]?.reason).toMatch(/maxRenewals/);

    const inverted = await warden("resource", "update", name, "--max-lease-ms", "1000");
    expect(inverted.code).toBe(1);
    expect(inverted.err).toContain("defaultLeaseMs must not exceed maxLeaseMs");
    expect((await prisma.resource.findUniqueOrThrow({ where: { name } })).maxLeaseMs).toBe(60_000);

    const nothing = await warden("resource", "update", name);
    expect(nothing.code).toBe(2);
    const unknown = await warden("resource", "update", `nope-${uid()}`, "--fair", "true");
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/nope-/);
  });

  it("lists live resources, refuses to retire one with a live lease, retires it once free", async () => {
    const name = `ret-${uid()}`;
    await warden("resource", "create", tenant, name);
    expect((await warden("resource", "list", "--tenant", tenant)).out).toContain(
      `${name}\t${tenant}\tlive`,
    );

    // A live Redis lease as the server mirrors it into the database.
    const connection = await createConnection({ uri: db.url });
    try {
      await connection.query(
        "INSERT INTO redis_lease_mirror (resource, business_key, lock_id, fence, expires_at) " +
          "VALUES (?, 'k', 'AAAAAAAAAAAAAAAAAAAAAA', 1, NOW(3) + INTERVAL 1 MINUTE)",
        [name],
      );
      const refused = await warden("resource", "retire", name);
      expect(refused.code).toBe(1);
      expect(refused.err).toContain(`resource "${name}" has live locks`);
      expect((await prisma.resource.findUniqueOrThrow({ where: { name } })).retiredAt).toBeNull();
      await connection.query("DELETE FROM redis_lease_mirror WHERE resource = ?", [name]);
    } finally {
      await connection.end();
    }
    const retired = await warden("resource", "retire", name);
    expect(retired).toMatchObject({ code: 0, out: `resource ${name} retired` });
    expect((await warden("resource", "list", "--tenant", tenant)).out).not.toContain(name);
    expect((await warden("resource", "list", "--tenant", tenant, "--all")).out).toContain(
      `${name}\t${tenant}\tretired`,
    );
    expect(await policyEvents(name)).toHaveLength(2);
    const again = await warden("resource", "retire", name);
    expect(again.code).toBe(1);
  });

  it("prints the usage for an unknown command, and needs an existing DATABASE_URL", async () => {
    const unknown = await warden("resource", "explode");
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("warden-admin resource create <tenant> <name>");
    const noDb = await runCli(["resource", "list"], { env: {}, out: () => {}, err: () => {} });
    expect(noDb).toBe(2);
    const missing = new URL(db.url);
    missing.pathname = `/nothing_${uid()}`;
    const err: string[] = [];
    const code = await runCli(["resource", "list"], {
      env: { DATABASE_URL: missing.toString() },
      out: () => {},
      err: (line) => err.push(line),
    });
    expect(code).toBe(1);
    expect(err.join("\n")).toMatch(
      /database "nothing_.*" does not exist: run `warden-admin migrate` first/,
    );
  });
});
