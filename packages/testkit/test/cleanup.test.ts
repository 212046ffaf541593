import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { once } from "node:events";
import { afterAll, describe, expect, test, vi } from "vitest";
import {
  freePort,
  listStartedPids,
  reapOrphans,
  startMariaDb,
  startRedis,
  startSentinelGroup,
  stopAllStarted,
} from "../src/index.js";
import { TESTKIT_TMP_ROOT } from "../src/process/temp-dir.js";
import { isSameProcessAlive, processStartTicks } from "../src/process/process-identity.js";
import { expectGone } from "./support/expect-gone.js";
import { spawnOwner } from "./support/spawn-owner.js";

/**
 * Whether `pid` still runs. A zombie counts as dead: an orphan killed after its owner
 * died is reparented to PID 1, which on some machines never reaps it.
 */
function isRunning(pid: number): boolean {
  return processStartTicks(pid) !== undefined;
}

afterAll(async () => {
  await stopAllStarted();
});

describe("stopAllStarted", () => {
  test("stops every started process, paused or killed ones included, and removes their dirs", async () => {
    const [redis, paused, mariadb, group] = await Promise.all([
      startRedis(),
      startRedis(),
      startMariaDb(),
      startSentinelGroup(),
    ]);
    paused.pause();
    await group.nodes[1]!.kill9();
    const pids = listStartedPids();
    // 2 standalone + 1 mariadb + 3 data nodes (one killed) + 3 sentinels
    expect(pids).toHaveLength(8);
    expect(pids).toEqual(expect.arrayContaining([redis.pid, paused.pid, mariadb.pid]));
    const dirs = [redis, paused, mariadb, ...group.nodes, ...group.sentinelNodes].map((s) => s.dir);

    await stopAllStarted();

    for (const pid of pids) expectGone(pid);
    expect(listStartedPids()).toEqual([]);
    for (const dir of dirs) expect(existsSync(dir), dir).toBe(false);
    expect(redis.state).toBe("stopped");
    await expect(redis.restart()).rejects.toThrow(/stopped for good/);
    await stopAllStarted();
  });

  test("stop() is idempotent", async () => {
    const redis = await startRedis();
    await Promise.all([redis.stop(), redis.stop()]);
    await redis.stopAll();
    expectGone(redis.pid);
  });
});

describe("crash safety", () => {
  test("reapOrphans kills servers whose owner died by SIGKILL, and only those", async () => {
    const alive = await spawnOwner("hang");
    const dead = await spawnOwner("hang");
    try {
      dead.process.kill("SIGKILL");
      await once(dead.process, "exit");
      // The orphan survives its owner: that is what the pid registry exists for.
      expect(isRunning(dead.redisPid)).toBe(true);

      const killed = await reapOrphans();

      expect(killed).toContain(dead.redisPid);
      expect(killed).not.toContain(alive.redisPid);
      expect(isRunning(dead.redisPid)).toBe(false);
      expect(existsSync(dead.redisDir)).toBe(false);
      expect(isRunning(alive.redisPid)).toBe(true);
    } finally {
      alive.process.kill("SIGTERM");
      await once(alive.process, "exit");
    }
    // The owner's SIGTERM hook killed its server on the way out.
    await vi.waitFor(() => expect(isRunning(alive.redisPid)).toBe(false), { timeout: 2_000 });
    expect(existsSync(alive.redisDir)).toBe(false);
  });

  test("a server dies with its owner on a normal exit", async () => {
    const owner = await spawnOwner("exit");
    await once(owner.process, "exit");
    await vi.waitFor(() => expect(isRunning(owner.redisPid)).toBe(false), { timeout: 2_000 });
    expect(existsSync(owner.redisDir)).toBe(false);
  });

  test("reapOrphans leaves a process alone when its pid was reused by another program", async () => {
    const stranger = spawn("sleep", ["30"], { stdio: "ignore" });
    const deadOwner = spawn("true");
    await once(deadOwner, "exit");
    try {
      // A record of a server long gone, owned by a dead process, whose pid now belongs
      // to an unrelated process: the start times do not match.
      const record = {
        pid: stranger.pid,
        startTicks: "1",
        command: "redis-server",
        ownerPid: deadOwner.pid,
        ownerStartTicks: "1",
      };
      writeFileSync(join(TESTKIT_TMP_ROOT, "pids", `${stranger.pid}.json`), JSON.stringify(record));
      expect(isSameProcessAlive(stranger.pid!, "1")).toBe(false);

      expect(await reapOrphans()).not.toContain(stranger.pid);
      expect(isRunning(stranger.pid!)).toBe(true);
      expect(existsSync(join(TESTKIT_TMP_ROOT, "pids", `${stranger.pid}.json`))).toBe(false);
    } finally {
      stranger.kill("SIGKILL");
    }
  });
});

describe("freePort", () => {
  test("returns distinct free ports below the ephemeral range", async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(new Set(ports).size).toBe(20);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(32_768);
    }
  });
});
