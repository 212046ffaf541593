import { startRedis } from "@warden/testkit";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, expect, test } from "vitest";
import { connectRedis, markClosing } from "../../src/redis/redis-connection.js";
import { eventually } from "../support/eventually.js";

let redis: Awaited<ReturnType<typeof startRedis>>;

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await redis?.stop();
});

function ended(client: Redis): Promise<void> {
  return new Promise((resolve) => client.once("end", () => resolve()));
}

test("a lock connection that ioredis ends unasked connects again; one its owner closes stays closed", async () => {
  const client = connectRedis({ mode: "standalone", url: redis.url }, 2_000) as Redis;
  try {
    expect(await eventually(() => client.ping())).toBe("PONG");

    // An end the owner did not ask for — as when ioredis gives up a connect interrupted by
    // its sentinel failover detector — leaves the client ended ("Connection is closed").
    const gone = ended(client);
    client.disconnect();
    await gone;
    await expect(client.ping()).rejects.toThrow(/Connection is closed/);
    // …until it connects again by itself.
    expect(await eventually(() => client.ping(), 5_000, 50)).toBe("PONG");

    // The owner closing it is final.
    markClosing(client);
    const closed = ended(client);
    client.disconnect();
    await closed;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(client.status).toBe("end");
    await expect(client.ping()).rejects.toThrow(/Connection is closed/);
  } finally {
    markClosing(client);
    client.disconnect();
  }
});
