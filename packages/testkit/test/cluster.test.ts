import type { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  startCluster,
  stopAllStarted,
  type RedisClusterGroup,
  type RedisNode,
} from "../src/index.js";
import { oneKeyPerSlot, SLOT_COUNT, slotOfTag } from "./support/slot-keys.js";

async function withClient<T>(node: RedisNode, use: (client: Redis) => Promise<T>): Promise<T> {
  const client = node.client({ maxRetriesPerRequest: 1 });
  try {
    return await use(client);
  } finally {
    client.disconnect();
  }
}

/** CLUSTER SLOTS as `{ from, to, port }` ranges, `port` being the serving master's. */
async function slotRanges(node: RedisNode): Promise<{ from: number; to: number; port: number }[]> {
  const ranges = await withClient(node, (c) => c.cluster("SLOTS"));
  return ranges.map(([from, to, master]) => ({ from, to, port: master?.[1] ?? 0 }));
}

/** Number of slots each master serves, by port. */
async function slotsPerMaster(node: RedisNode): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  for (const { from, to, port } of await slotRanges(node)) {
    counts.set(port, (counts.get(port) ?? 0) + to - from + 1);
  }
  return counts;
}

describe("startCluster", () => {
  let cluster: RedisClusterGroup;
  let client: Cluster;

  beforeAll(async () => {
    cluster = await startCluster();
    client = cluster.client();
  });

  afterAll(async () => {
    client.disconnect();
    await stopAllStarted();
  });

  test("starts six nodes that answer PING, three of them masters with a synced replica each", async () => {
    expect(cluster.nodes).toHaveLength(6);
    expect(cluster.startupNodes).toHaveLength(6);
    for (const node of cluster.nodes) {
      expect(await withClient(node, (c) => c.ping())).toBe("PONG");
      const info = await withClient(node, (c) => c.info("replication"));
      if (info.includes("role:slave")) expect(info).toContain("master_link_status:up");
    }
    const masters = await cluster.masters();
    expect(masters).toHaveLength(3);
    const slots = await slotsPerMaster(cluster.nodes[0]!);
    expect([...slots.keys()].sort()).toEqual(masters.map((m) => m.port).sort());
  });

  test("the slot helper agrees with CLUSTER KEYSLOT", async () => {
    for (const tag of ["0", "warden", "order:settle", "12345"]) {
      expect(await withClient(cluster.nodes[0]!, (c) => c.cluster("KEYSLOT", `{${tag}}`))).toBe(
        slotOfTag(tag),
      );
    }
  });

  test("accepts a key in every one of the 16384 slots, spread over all three masters", async () => {
    const keys = oneKeyPerSlot();
    expect(keys).toHaveLength(SLOT_COUNT);
    const writer = cluster.client({ enableAutoPipelining: true });
    try {
      await Promise.all(keys.map((key) => writer.set(key, "x")));
    } finally {
      writer.disconnect();
    }
    const expected = await slotsPerMaster(cluster.nodes[0]!);
    for (const master of await cluster.masters()) {
      const size = await withClient(master, (c) => c.dbsize());
      // One key per slot, so each master holds exactly as many keys as it serves slots.
      expect(size).toBe(expected.get(master.port));
      expect(size).toBeGreaterThan(0);
    }
  });

  test("a plain client gets MOVED for a foreign slot while the Cluster client follows it", async () => {
    const [first] = await cluster.masters();
    const ranges = await slotRanges(first!);
    const foreign = oneKeyPerSlot().find((_, slot) =>
      ranges.some(({ from, to, port }) => slot >= from && slot <= to && port !== first!.port),
    )!;
    await expect(withClient(first!, (c) => c.set(foreign, "plain"))).rejects.toThrow(
      /^MOVED \d+ 127\.0\.0\.1:\d+/,
    );
    expect(await client.set(foreign, "cluster")).toBe("OK");
    expect(await client.get(foreign)).toBe("cluster");
  });

  test("failoverMaster promotes the replica; the restarted old master rejoins as its replica", async () => {
    const [victim] = await cluster.masters();
    const key = "{failover}";
    await client.set(key, "kept");
    const started = performance.now();
    const promoted = await cluster.failoverMaster(victim!);
    // ~2.3 s with a 1 s node timeout.
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(promoted.port).not.toBe(victim!.port);
    expect((await cluster.masters()).map((m) => m.port)).toContain(promoted.port);
    expect((await cluster.masters()).map((m) => m.port)).not.toContain(victim!.port);
    expect(await client.get(key)).toBe("kept");

    await victim!.restart();
    const info = await withClient(victim!, (c) => c.info("replication"));
    expect(info).toContain("role:slave");
    expect(info).toContain(`master_port:${promoted.port}`);
  });

  test("failoverMaster by CLUSTER FAILOVER swaps roles without a fault", async () => {
    const [master] = await cluster.masters();
    const promoted = await cluster.failoverMaster(master!, { how: "command" });
    const masters = (await cluster.masters()).map((m) => m.port);
    expect(masters).toContain(promoted.port);
    expect(masters).not.toContain(master!.port);
    expect(await withClient(master!, (c) => c.info("replication"))).toContain("role:slave");
  });
});
