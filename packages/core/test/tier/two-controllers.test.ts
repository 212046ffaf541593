import { freePort, type MariaDbServer, type StandaloneRedis } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { TieredLocks } from "../../src/index.js";
import { sleep } from "../support/ids.js";
import { openLocks, startBackends, waitForTier } from "./tier-harness.js";

let redis: StandaloneRedis;
let mariadb: MariaDbServer;
const opened: TieredLocks[] = [];

beforeAll(async () => {
  ({ redis, mariadb } = await startBackends());
});

afterAll(async () => {
  await Promise.all(opened.map((l) => l.close()));
  await Promise.all([redis?.stop(), mariadb?.stop()]);
});

test("two controllers on one MariaDB, one of them cut off from Redis, converge on one tier and stay there", async () => {
  const healthy = await openLocks(redis.url, mariadb.url, "instance-healthy");
  opened.push(healthy);
  await waitForTier(healthy, "redis");
  // Nothing listens on this port: this instance never reaches Redis.
  const cutOff = await openLocks(
    `redis://127.0.0.1:${await freePort()}`,
    mariadb.url,
    "instance-cut-off",
  );
  opened.push(cutOff);
  await waitForTier(cutOff, "mysql");
  await waitForTier(healthy, "mysql", 3_000);
  const version = healthy.snapshot().version;
  // Well past the hold-down: the healthy instance must not lead the fleet back and forth.
  await sleep(4_000);
  expect(healthy.tier).toBe("mysql");
  expect(cutOff.tier).toBe("mysql");
  expect(healthy.snapshot().version).toBe(version);
  expect(cutOff.snapshot().version).toBe(version);

  // Once the cut-off instance is gone, the healthy one may lead the recovery.
  await cutOff.close();
  opened.pop();
  await waitForTier(healthy, "redis", 10_000);
});
