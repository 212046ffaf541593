import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpServerHandle } from "../src/http/server.js";
import { startHarness, type Harness } from "./support/harness.js";
import { serveHarness } from "./support/lock-client.js";

let h: Harness;
let http: HttpServerHandle;

beforeAll(async () => {
  h = await startHarness();
  http = await serveHarness(h, { maxBodyBytes: 16 * 1024, shutdownGraceMs: 1_000 });
});
afterAll(async () => {
  await http?.close();
  await h?.close();
});

async function readyz(): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${http.url}/readyz`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("/readyz: can this instance grant on the tier in force", () => {
  it("is ready on redis, and /healthz says only that the process is up", async () => {
    expect(await readyz()).toEqual({ status: 200, body: { ready: true, tier: "redis" } });
    const health = await fetch(`${http.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
  });

  it("is ready on mysql", async () => {
    await h.services.locks.override("mysql", "readyz-test", "pin mysql");
    expect(await readyz()).toEqual({ status: 200, body: { ready: true, tier: "mysql" } });
  });

  it("is not ready on local, with the reason, while /healthz stays 200", async () => {
    await h.services.locks.override("local", "readyz-test", "pin local");
    const { status, body } = await readyz();
    expect(status).toBe(503);
    expect(body).toMatchObject({ ready: false, tier: "local" });
    expect(String(body.reason)).toMatch(/local tier.*fail-closed resources get no lock/);
    expect((await fetch(`${http.url}/healthz`)).status).toBe(200);
  });

  it("is ready again once the fleet is back on a shared tier", async () => {
    await h.services.locks.override("redis", "readyz-test", "back to redis");
    expect(await readyz()).toEqual({ status: 200, body: { ready: true, tier: "redis" } });
  });

  it("is not ready while Redis, the tier in force, does not answer", async () => {
    h.redis.pause();
    try {
      const { status, body } = await readyz();
      expect(status).toBe(503);
      expect(body).toMatchObject({ ready: false, tier: "redis" });
      expect(String(body.reason)).toContain("redis tier does not answer");
    } finally {
      h.redis.resume();
    }
  });
});
