import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startRedis, stopAllStarted, type StandaloneRedis } from "../src/index.js";
import { expectGone } from "./support/expect-gone.js";

describe("startRedis", () => {
  let redis: StandaloneRedis;
  let client: Redis;

  beforeAll(async () => {
    redis = await startRedis({ args: ["--maxmemory", "16mb"] });
    client = redis.client();
  });

  afterAll(async () => {
    client.disconnect();
    await stopAllStarted();
  });

  test("answers PING on a private loopback port and stores keys", async () => {
    expect(redis.host).toBe("127.0.0.1");
    expect(redis.port).not.toBe(6379);
    expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
    expect(await client.ping()).toBe("PONG");
    await client.set("greeting", "hello");
    expect(await client.get("greeting")).toBe("hello");
  });

  test("applies extra args and keeps persistence off", async () => {
    expect(await client.config("GET", "maxmemory")).toEqual([
      "maxmemory",
      String(16 * 1024 * 1024),
    ]);
    expect(await client.config("GET", "save")).toEqual(["save", ""]);
    expect(await client.config("GET", "appendonly")).toEqual(["appendonly", "no"]);
  });

  test("kill9 then restart comes back on the same port, empty", async () => {
    const oldPid = redis.pid;
    await redis.kill9();
    expect(redis.state).toBe("exited");
    expectGone(oldPid);
    await redis.restart();
    expect(redis.state).toBe("running");
    expect(redis.pid).not.toBe(oldPid);
    const fresh = redis.client();
    try {
      expect(await fresh.ping()).toBe("PONG");
      expect(await fresh.get("greeting")).toBeNull();
    } finally {
      fresh.disconnect();
    }
  });

  test("pause freezes the server until resume", async () => {
    const probe = redis.client({ commandTimeout: 300, maxRetriesPerRequest: 0 });
    try {
      await probe.ping();
      redis.pause();
      expect(redis.state).toBe("paused");
      await expect(probe.ping()).rejects.toThrow(/timed out/i);
      redis.resume();
      expect(redis.state).toBe("running");
      await expect(probe.ping()).resolves.toBe("PONG");
    } finally {
      probe.disconnect();
    }
  });
});
