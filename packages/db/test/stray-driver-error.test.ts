import { PrismaMariaDb } from "@prisma/adapter-mariadb";
import { createTestDatabase, type TestDatabase } from "@warden/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, isStrayDriverError, type PrismaClient } from "../src/index.js";

interface DriverConnection {
  readonly threadId: number | null;
  on(event: "error", listener: (error: unknown) => void): unknown;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
}
interface DriverPool {
  getConnection(): Promise<DriverConnection>;
  end(): Promise<void>;
}

describe("isStrayDriverError()", () => {
  let db: TestDatabase;
  let prisma: PrismaClient;
  let pool: DriverPool;

  beforeAll(async () => {
    db = await createTestDatabase();
    prisma = createPrismaClient(db.url);
    const adapter = await new PrismaMariaDb(db.url).connect();
    pool = adapter.underlyingDriver();
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await pool.end();
    await db.drop();
  });

  it("is true for a driver connection's own error: its socket closed under it (killed server-side)", async () => {
    const victim = await pool.getConnection();
    const killer = await pool.getConnection();
    const seen = new Promise<unknown>((resolve) => victim.on("error", resolve));
    await killer.query(`KILL ${victim.threadId}`);
    await killer.end();
    const error = await seen;
    expect((error as Error).message).toMatch(/socket|closed|killed/i);
    expect(isStrayDriverError(error)).toBe(true);
  });

  it("is true for a raw driver error, false for the same failure as Prisma reports it to its caller", async () => {
    const raw = await pool.getConnection().then(async (connection) => {
      try {
        return await connection.query("SELEC 1").then(
          () => null,
          (error: unknown) => error,
        );
      } finally {
        await connection.end();
      }
    });
    expect(isStrayDriverError(raw)).toBe(true);
    const wrapped = await prisma.$queryRawUnsafe("SELEC 1").then(
      () => null,
      (error: unknown) => error,
    );
    expect(wrapped).toBeInstanceOf(Error);
    expect(isStrayDriverError(wrapped)).toBe(false);
  });

  it("is false for anything else", () => {
    expect(isStrayDriverError(new Error("socket has unexpectedly been closed"))).toBe(false);
    expect(isStrayDriverError(new TypeError("x is not a function"))).toBe(false);
    expect(isStrayDriverError("SqlError")).toBe(false);
    expect(isStrayDriverError(null)).toBe(false);
  });
});
