import { createTestDatabase, type TestDatabase } from "@warden/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, migrate, type PrismaClient } from "../src/index.js";

describe("createPrismaClient()", () => {
  let db: TestDatabase;
  let prisma: PrismaClient;

  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.url);
    prisma = createPrismaClient(db.url);
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await db.drop();
  });

  it("reads and writes the migrated tables through the MariaDB adapter", async () => {
    await prisma.tenant.create({ data: { id: "payments", name: "Payments" } });
    await prisma.resource.create({
      data: {
        name: "order:settle",
        tenantId: "payments",
        defaultLeaseMs: 10_000,
        maxLeaseMs: 60_000,
      },
    });
    const resource = await prisma.resource.findUniqueOrThrow({
      where: { name: "order:settle" },
      select: { name: true, localFallback: true, degrade: true, fair: true, waitReplicas: true },
    });
    expect(resource).toEqual({
      name: "order:settle",
      localFallback: "deny",
      degrade: true,
      fair: false,
      waitReplicas: 0,
    });
  });

  it("compares resource names byte for byte", async () => {
    expect(await prisma.resource.findUnique({ where: { name: "ORDER:SETTLE" } })).toBeNull();
  });

  it("stores fences as unsigned 64-bit integers", async () => {
    const fence = 2n ** 52n + 7n;
    await prisma.lockEvent.create({
      data: { id: "e1", type: "grant", resource: "order:settle", fence, at: new Date() },
    });
    const event = await prisma.lockEvent.findFirstOrThrow({
      where: { fence },
      select: { id: true, fence: true },
    });
    expect(event).toEqual({ id: "e1", fence });
  });
});
