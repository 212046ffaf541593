import { createPrismaClient } from "@warden/db";
import { afterAll, expect, it } from "vitest";
import { startHttpServer } from "../src/http/server.js";
import { registerResource, startHarness, uid, type Harness } from "./support/harness.js";

let h: Harness | undefined;
afterAll(() => h?.close());

it("shuts down gracefully: refuses new calls, ends waits, finishes calls in progress, flushes the audit", async () => {
  // Audit batches only on close: whatever is buffered must still reach MySQL.
  h = await startHarness({ audit: { flushMs: 3_600_000 } });
  const http = await startHttpServer(h.services, {
    host: "127.0.0.1",
    port: 0,
    maxBodyBytes: 65_536,
    shutdownGraceMs: 5_000,
  });
  const tenant = await h.tenant();
  const resource = await registerResource(tenant);
  const businessKey = `bye-${uid()}`;
  const headers = {
    authorization: `Bearer ${tenant.key}`,
    "x-warden-client-id": "c",
    "content-type": "application/json",
  };
  const call = (path: string, body: unknown) =>
    fetch(`${http.url}/trpc/${path}`, { method: "POST", headers, body: JSON.stringify(body) });

  const held = await (
    await call("lock.acquire", { resource, businessKey, ownerId: "holder" })
  ).json();
  const lockId = (held as { result: { data: { lockId: string } } }).result.data.lockId;
  const waiting = call("lock.acquire", {
    resource,
    businessKey,
    ownerId: "waiter",
    waitMs: 20_000,
  });
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(h.services.waiters.list(resource)).toHaveLength(1);

  const started = performance.now();
  await http.close();
  expect(performance.now() - started).toBeLessThan(3_000);
  expect((await waiting).status).toBe(499);
  await expect(fetch(`${http.url}/healthz`)).rejects.toThrow();

  await h.closeServices();
  const prisma = createPrismaClient(h.db.url);
  try {
    // The grant's hold row (docs/decisions/0070) was flushed before the services closed.
    const hold = await prisma.lockHold.findUnique({
      where: { lockId },
      select: { resource: true, grantedAt: true },
    });
    expect(hold?.resource).toBe(resource);
    expect(hold?.grantedAt).not.toBeNull();
  } finally {
    await prisma.$disconnect();
  }
});
