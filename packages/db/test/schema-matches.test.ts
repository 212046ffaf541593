import { createTestDatabase, type TestDatabase } from "@warden/testkit";
import { createConnection, type RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../src/index.js";
import { describeChange } from "../src/schema/diff-shapes.js";
import { schemaDrift } from "../src/schema/schema-drift.js";

// The committed migrations must build exactly what schema.prisma declares (as Prisma's
// own parser reads it), and the check must be able to fail.
describe("a freshly migrated database", () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.url);
  });
  afterAll(async () => {
    await db.drop();
  });

  async function alter(sql: string): Promise<void> {
    const connection = await createConnection({ uri: db.url });
    try {
      await connection.query(sql);
    } finally {
      await connection.end();
    }
  }

  it("matches schema.prisma", async () => {
    expect((await schemaDrift(db.url)).map(describeChange)).toEqual([]);
  });

  it("keeps the DDL the core code relies on", async () => {
    const connection = await createConnection({ uri: db.url });
    try {
      const [created] = await connection.query<RowDataPacket[]>("SHOW CREATE TABLE fence_epoch");
      const ddl = String(created[0]?.["Create Table"]);
      expect(ddl).toMatch(/`id` tinyint\(3\) unsigned NOT NULL/);
      expect(ddl).toMatch(/`minted_at` datetime\(3\) NOT NULL DEFAULT current_timestamp\(3\)/);
      const [sequence] = await connection.query<RowDataPacket[]>(
        "SELECT NEXTVAL(mysql_lock_fence_seq) AS next",
      );
      expect(Number(sequence[0]?.next)).toBeGreaterThan(0);
    } finally {
      await connection.end();
    }
  });

  it("reports a dropped column, a changed type and a missing index", async () => {
    await alter("ALTER TABLE mysql_lock DROP COLUMN owner_id");
    await alter("ALTER TABLE tier_state MODIFY reason VARCHAR(100) NOT NULL");
    await alter("DROP INDEX lock_event_fence_idx ON lock_event");
    const drift = (await schemaDrift(db.url)).map(describeChange);
    expect(drift).toContain("column mysql_lock.owner_id is missing");
    expect(drift.some((line) => line.startsWith("column tier_state.reason differs"))).toBe(true);
    expect(drift).toContain("index lock_event.lock_event_fence_idx is missing or differs");
    expect(drift).toHaveLength(3);
  });

  it("reports a table schema.prisma does not declare and a lost collation", async () => {
    await alter("CREATE TABLE stray (id INT PRIMARY KEY)");
    await alter(
      "ALTER TABLE redis_lease_mirror CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci",
    );
    const drift = (await schemaDrift(db.url)).map(describeChange);
    expect(drift).toContain("table stray is not in schema.prisma");
    expect(drift).toContain("table redis_lease_mirror should have collation utf8mb4_nopad_bin");
  });
});
