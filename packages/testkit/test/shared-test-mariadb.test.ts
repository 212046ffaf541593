import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { freePort } from "../src/index.js";
import { findSharedTestMariaDb } from "../src/mariadb/shared-test-mariadb.js";
import { withMysql } from "../src/mariadb/with-mysql.js";

const NAMES = ["WARDEN_TEST_MYSQL_URL", "MYSQL_URL"] as const;

describe("findSharedTestMariaDb", () => {
  const saved: Partial<Record<(typeof NAMES)[number], string>> = {};
  // The server this run's tests share: the global setup found it (and may have started it).
  const shared = process.env.WARDEN_TEST_MYSQL_URL ?? process.env.MYSQL_URL;

  beforeEach(() => {
    for (const name of NAMES) {
      const value = process.env[name];
      if (value !== undefined) saved[name] = value;
      delete process.env[name];
    }
  });

  afterEach(() => {
    for (const name of NAMES) {
      delete process.env[name];
      const value = saved[name];
      if (value !== undefined) process.env[name] = value;
    }
  });

  test("with no server configured and none answering, starts a private one that answers", async () => {
    const nothing = `mysql://root@127.0.0.1:${await freePort()}`;
    const found = await findSharedTestMariaDb(nothing);
    try {
      expect(found.started).not.toBeNull();
      expect(found.url).toBe(found.started!.url);
      expect(found.url).not.toBe(nothing);
      const [rows] = await withMysql(found.url, (c) => c.query("SELECT 1 AS one"));
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await found.started?.stop();
    }
  });

  test("uses the fallback server when it answers, starting nothing", async () => {
    const fallback = shared ?? "mysql://root@127.0.0.1:3306";
    const found = await findSharedTestMariaDb(fallback);
    expect(found).toEqual({ url: fallback, started: null });
  });

  test("uses a configured server as it is, even one that does not answer", async () => {
    const configured = `mysql://root@127.0.0.1:${await freePort()}`;
    process.env.WARDEN_TEST_MYSQL_URL = configured;
    const found = await findSharedTestMariaDb(`mysql://root@127.0.0.1:${await freePort()}`);
    expect(found).toEqual({ url: configured, started: null });
  });
});
