import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createTestDatabase } from "@warden/testkit";
import { createConnection, type RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, MigrateError } from "../src/index.js";
import { readMigrations } from "../src/migrate/read-migrations.js";
import { MIGRATIONS_DIR } from "../src/paths.js";

const run = promisify(execFile);
const dbDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsx = join(dbDir, "..", "..", "node_modules", ".bin", "tsx");
let serverUrl: URL;
const made: string[] = [];
const users: string[] = [];

function urlOf(database: string, user?: { name: string; password: string }): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  if (user) {
    url.username = user.name;
    url.password = user.password;
  }
  return url.toString();
}

async function admin<T>(work: (query: (sql: string) => Promise<RowDataPacket[]>) => Promise<T>) {
  const connection = await createConnection({ uri: serverUrl.toString() });
  try {
    return await work(async (sql) => (await connection.query<RowDataPacket[]>(sql))[0]);
  } finally {
    await connection.end();
  }
}

function freshName(): string {
  const name = `warden_missing_${randomBytes(5).toString("hex")}`;
  made.push(name);
  return name;
}

beforeAll(async () => {
  // The MariaDB tests use (WARDEN_TEST_MYSQL_URL or the local one), as a server URL.
  const probe = await createTestDatabase();
  await probe.drop();
  serverUrl = new URL(probe.url);
  serverUrl.pathname = "";
});

afterAll(async () => {
  await admin(async (query) => {
    for (const name of made) await query(`DROP DATABASE IF EXISTS \`${name}\``);
    for (const user of users) await query(`DROP USER IF EXISTS '${user}'@'%'`);
  });
});

describe("migrating a database that does not exist", () => {
  it("creates it, then applies every migration", async () => {
    const name = freshName();
    const result = await migrate(urlOf(name));
    expect(result.createdDatabase).toBe(name);
    expect(result.applied).toEqual((await readMigrations(MIGRATIONS_DIR)).map((f) => f.name));
    const [row] = await admin((query) =>
      query(
        `SELECT DEFAULT_CHARACTER_SET_NAME AS cs FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '${name}'`,
      ),
    );
    expect(row?.cs).toBe("utf8mb4");
    expect(await migrate(urlOf(name))).toEqual({ applied: [], createdDatabase: null });
  });

  it("tells a user who may not create or use it exactly what an administrator must run", async () => {
    const name = freshName();
    const user = { name: `wm_${randomBytes(4).toString("hex")}`, password: "pw-of-test" };
    users.push(user.name);
    await admin((query) =>
      query(`CREATE USER '${user.name}'@'%' IDENTIFIED BY '${user.password}'`),
    );
    const error = await migrate(urlOf(name, user)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrateError);
    const message = (error as MigrateError).message;
    expect(message).toContain(
      `user "${user.name}" may not use database "${name}" (or it does not exist)`,
    );
    expect(message).toContain(
      `CREATE DATABASE IF NOT EXISTS \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;`,
    );
    expect(message).toContain(`GRANT ALL PRIVILEGES ON \`${name}\`.* TO '${user.name}'@'%';`);
    const [exists] = await admin((query) =>
      query(`SELECT COUNT(*) AS n FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '${name}'`),
    );
    expect(Number(exists?.n)).toBe(0);
  });

  it("`pnpm db:migrate` prints that advice on one line of stderr, not a stack trace", async () => {
    const name = freshName();
    const user = { name: `wm_${randomBytes(4).toString("hex")}`, password: "pw-of-test" };
    users.push(user.name);
    await admin((query) =>
      query(`CREATE USER '${user.name}'@'%' IDENTIFIED BY '${user.password}'`),
    );
    const failed = await run(tsx, ["scripts/migrate.ts", "--url", urlOf(name, user)], {
      cwd: dbDir,
    }).catch((e: unknown) => e as { code: number; stderr: string });
    expect(failed).toMatchObject({ code: 1 });
    const stderr = (failed as { stderr: string }).stderr;
    expect(stderr).toMatch(/^migrate failed: user ".*" may not use database/);
    expect(stderr).not.toMatch(/\n\s+at /);

    const ok = await run(tsx, ["scripts/migrate.ts"], {
      cwd: dbDir,
      env: { ...process.env, DATABASE_URL: urlOf(name) },
    });
    expect(ok.stdout).toContain(`created database ${name}`);
    expect(ok.stdout).toContain("applied: ");
  });
});
