import { createTestDatabase, type TestDatabase } from "@warden/testkit";
import { createConnection, type RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../src/index.js";
import { readMigrations } from "../src/migrate/read-migrations.js";
import { MIGRATIONS_DIR } from "../src/paths.js";

describe("migrate()", () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it("applies every committed migration once and records it as Prisma does", async () => {
    const files = await readMigrations(MIGRATIONS_DIR);
    const first = await migrate(db.url);
    expect(first.applied).toEqual(files.map((file) => file.name));

    const connection = await createConnection({ uri: db.url });
    try {
      const [rows] = await connection.query<RowDataPacket[]>(
        `SELECT migration_name, checksum, finished_at, rolled_back_at, applied_steps_count, logs
           FROM _prisma_migrations ORDER BY migration_name`,
      );
      expect(rows.map((row) => String(row.migration_name))).toEqual(files.map((file) => file.name));
      for (const [i, row] of rows.entries()) {
        expect(row.checksum).toBe(files[i]?.checksum);
        expect(row.finished_at).toBeInstanceOf(Date);
        expect(row.rolled_back_at).toBeNull();
        expect(row.applied_steps_count).toBe(1);
        expect(row.logs).toBeNull();
      }
    } finally {
      await connection.end();
    }
  });

  it("is a no-op the second time", async () => {
    expect(await migrate(db.url)).toEqual({ applied: [], createdDatabase: null });
  });

  it("lets concurrent migrators apply each migration exactly once", async () => {
    const fresh = await createTestDatabase();
    try {
      const results = await Promise.all([
        migrate(fresh.url),
        migrate(fresh.url),
        migrate(fresh.url),
      ]);
      const applied = results.flatMap((result) => result.applied);
      const files = await readMigrations(MIGRATIONS_DIR);
      expect(applied.sort()).toEqual(files.map((file) => file.name).sort());
    } finally {
      await fresh.drop();
    }
  });
});
