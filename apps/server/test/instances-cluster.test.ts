// The instance registry on a 6-node Redis Cluster (docs/decisions/0135): every key shares
// the hash tag {inst}, so a beat's MULTI and a list's pipeline run on one slot.
import { startCluster, type RedisClusterGroup } from "@warden/testkit";
import { pino } from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { InstanceRegistry } from "../src/instances/instance-registry.js";
import { uid } from "./support/harness.js";

let cluster: RedisClusterGroup;
const registries: InstanceRegistry[] = [];

beforeAll(async () => {
  cluster = await startCluster();
});
afterAll(async () => {
  await Promise.allSettled(registries.map((registry) => registry.close()));
  await cluster?.stop();
});

function registry(name: string): InstanceRegistry {
  const made = new InstanceRegistry({
    identity: {
      id: `${name}:${uid()}`,
      name,
      version: "0.1.0",
      host: "test",
      pid: process.pid,
      startedAt: Date.now(),
    },
    redis: { mode: "cluster", nodes: [...cluster.startupNodes] },
    tier: () => ({ tier: "redis", version: 1, epoch: 1, forced: false, decidedAlone: false }),
    logger: pino({ level: "silent" }),
    everyMs: 200,
    ttlMs: 1_000,
  });
  registries.push(made);
  made.start();
  return made;
}

async function namesSeenBy(target: InstanceRegistry, count: number): Promise<string[]> {
  const deadline = performance.now() + 10_000;
  for (;;) {
    const answer = await target.list();
    const names = answer.instances.map((entry) => entry.name).sort();
    if (names.length === count || performance.now() > deadline) {
      expect(answer.source).toBe("redis");
      return names;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it("two instances on a cluster list each other, and one that closes is gone at once", async () => {
  const a = registry("a");
  const b = registry("b");
  expect(await namesSeenBy(a, 2)).toEqual(["a", "b"]);
  expect(await namesSeenBy(b, 2)).toEqual(["a", "b"]);
  await b.close();
  const answer = await a.list();
  expect(answer.instances.map((entry) => entry.name)).toEqual(["a"]);
  expect(a.fleetSize).toBeGreaterThanOrEqual(1);
});
