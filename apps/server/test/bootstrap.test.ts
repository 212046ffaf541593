import { Writable } from "node:stream";
import { createPrismaClient, migrate, type PrismaClient } from "@warden/db";
import { createTestDatabase, type TestDatabase } from "@warden/testkit";
import { pino } from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { verifyPassword } from "../src/auth/password.js";
import { BootstrapGate } from "../src/bootstrap/bootstrap-gate.js";

let db: TestDatabase;
let prisma: PrismaClient;

beforeAll(async () => {
  db = await createTestDatabase();
  await migrate(db.url);
  prisma = createPrismaClient(db.url);
});
afterAll(async () => {
  await prisma?.$disconnect();
  await db?.drop();
});

function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: "info" }, stream), lines };
}

it("prints a one-time token on an empty database and turns it into the first admin, once", async () => {
  const { logger, lines } = capturingLogger();
  const gate = new BootstrapGate(prisma, logger);
  await gate.init();
  expect(gate.open).toBe(true);
  const token = (
    JSON.parse(lines.find((line) => line.includes("bootstrapToken"))!) as { bootstrapToken: string }
  ).bootstrapToken;
  expect(await gate.claim("x".repeat(token.length), "root", "a long first password")).toBe(false);
  expect(await gate.claim(token, "root", "a long first password")).toBe(true);
  expect(gate.open).toBe(false);
  expect(await gate.claim(token, "again", "a long first password")).toBe(false);
  const admin = await prisma.operator.findUniqueOrThrow({
    where: { username: "root" },
    select: { role: true, passwordHash: true },
  });
  expect(admin.role).toBe("admin");
  expect(await verifyPassword("a long first password", admin.passwordHash)).toBe(true);
  // A second start finds an operator and prints nothing.
  const second = capturingLogger();
  const gate2 = new BootstrapGate(prisma, second.logger);
  await gate2.init({ admin: { username: "ignored", password: "another long password" } });
  expect(gate2.open).toBe(false);
  expect(await prisma.operator.count()).toBe(1);
});

it("creates the first admin from WARDEN_ADMIN_USER / WARDEN_ADMIN_PASSWORD", async () => {
  await prisma.operator.deleteMany({});
  const gate = new BootstrapGate(prisma, capturingLogger().logger);
  await gate.init({ admin: { username: "boss", password: "a long first password" } });
  expect(gate.open).toBe(false);
  expect(
    await prisma.operator.findUnique({ where: { username: "boss" }, select: { role: true } }),
  ).toEqual({ role: "admin" });
});
