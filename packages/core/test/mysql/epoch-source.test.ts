import { migrate } from "@warden/db";
import { createTestDatabase, type TestDatabase } from "@warden/testkit";
import { createPool, type Pool, type RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MysqlEpochSource } from "../../src/index.js";

describe("MysqlEpochSource", () => {
  let db: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.url);
    pool = createPool({ uri: db.url, connectionLimit: 8 });
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  it("starts at 0, mints 1 first, and records the reason", async () => {
    const source = new MysqlEpochSource(pool);
    expect(await source.current()).toBe(0);
    expect(await source.mint("first")).toBe(1);
    expect(await source.current()).toBe(1);
    const [rows] = await pool.query<RowDataPacket[]>("SELECT reason FROM fence_epoch WHERE id = 1");
    expect(rows[0]?.reason).toBe("first");
  });

  it("hands every concurrent minter (several servers) a different, higher epoch", async () => {
    const sources = [new MysqlEpochSource(pool), new MysqlEpochSource(pool)];
    const before = await sources[0]!.current();
    const minted = await Promise.all(
      Array.from({ length: 40 }, (_, i) => sources[i % 2]!.mint(`m${i}`)),
    );
    expect(new Set(minted).size).toBe(40);
    expect(Math.min(...minted)).toBe(before + 1);
    expect(Math.max(...minted)).toBe(before + 40);
    expect(await sources[1]!.current()).toBe(before + 40);
  });
});
