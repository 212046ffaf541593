import { createConnection, type Connection } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  createTestDatabase,
  startMariaDb,
  stopAllStarted,
  type MariaDbServer,
} from "../src/index.js";
import { expectGone } from "./support/expect-gone.js";

async function withConnection<T>(url: string, use: (c: Connection) => Promise<T>): Promise<T> {
  const connection = await createConnection(url);
  try {
    return await use(connection);
  } finally {
    await connection.end();
  }
}

async function databaseExists(serverUrl: string, name: string): Promise<boolean> {
  return withConnection(serverUrl, async (c) => {
    const [rows] = await c.query("SHOW DATABASES LIKE ?", [name]);
    return (rows as unknown[]).length === 1;
  });
}

describe("startMariaDb", () => {
  let server: MariaDbServer;

  beforeAll(async () => {
    server = await startMariaDb();
  });

  afterAll(async () => {
    await stopAllStarted();
  });

  test("accepts root from 127.0.0.1 on a private port with the warden database", async () => {
    expect(server.port).not.toBe(3306);
    expect(server.url).toBe(`mysql://root@127.0.0.1:${server.port}/warden`);
    const [rows] = await withConnection(server.url, (c) =>
      c.query("SELECT DATABASE() AS db, 1 + 1 AS two"),
    );
    expect(rows).toEqual([{ db: "warden", two: 2 }]);
  });

  test("kill9 + restart keeps committed InnoDB rows, on the same port", async () => {
    await withConnection(server.url, async (c) => {
      await c.query(
        "CREATE TABLE fences (k VARCHAR(64) PRIMARY KEY, fence BIGINT UNSIGNED) ENGINE=InnoDB",
      );
      await c.query("INSERT INTO fences VALUES ('order:1', 42)");
    });
    const { port, pid } = server;
    await server.kill9();
    expectGone(pid);
    await server.restart();
    expect(server.port).toBe(port);
    expect(server.pid).not.toBe(pid);
    const [rows] = await withConnection(server.url, (c) => c.query("SELECT k, fence FROM fences"));
    expect(rows).toEqual([{ k: "order:1", fence: 42 }]);
  });

  test("createTestDatabase creates and drops a uniquely named database", async () => {
    const serverUrl = `mysql://root@127.0.0.1:${server.port}`;
    const first = await createTestDatabase({ url: server.url });
    const second = await createTestDatabase({ url: server.url });
    expect(first.database).toMatch(/^warden_test_[0-9a-f]{12}$/);
    expect(first.database).not.toBe(second.database);
    expect(first.url).toBe(`${serverUrl}/${first.database}`);
    const [rows] = await withConnection(first.url, (c) => c.query("SELECT DATABASE() AS db"));
    expect(rows).toEqual([{ db: first.database }]);
    await first.drop();
    await first.drop();
    expect(await databaseExists(serverUrl, first.database)).toBe(false);
    expect(await databaseExists(serverUrl, second.database)).toBe(true);
    await second.drop();
  });
});

describe("createTestDatabase on the shared server", () => {
  test("defaults to WARDEN_TEST_MYSQL_URL, MYSQL_URL or 127.0.0.1:3306", async () => {
    const database = await createTestDatabase();
    try {
      const [rows] = await withConnection(database.url, (c) => c.query("SELECT DATABASE() AS db"));
      expect(rows).toEqual([{ db: database.database }]);
    } finally {
      await database.drop();
    }
  });
});
