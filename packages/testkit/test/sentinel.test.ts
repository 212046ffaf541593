import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  startSentinelGroup,
  stopAllStarted,
  type RedisNode,
  type SentinelGroup,
} from "../src/index.js";

async function role(node: RedisNode): Promise<string> {
  const client = node.client({ maxRetriesPerRequest: 1 });
  try {
    const info = await client.info("replication");
    return /role:(\w+)/.exec(info)?.[1] ?? "unknown";
  } finally {
    client.disconnect();
  }
}

async function masterPortsFromAllSentinels(group: SentinelGroup): Promise<number[]> {
  return Promise.all(
    group.sentinelNodes.map(async (sentinel) => {
      const client = sentinel.client();
      try {
        const reply = (await client.call(
          "SENTINEL",
          "GET-MASTER-ADDR-BY-NAME",
          group.masterName,
        )) as string[];
        return Number(reply[1]);
      } finally {
        client.disconnect();
      }
    }),
  );
}

describe("startSentinelGroup", () => {
  let group: SentinelGroup;

  beforeAll(async () => {
    group = await startSentinelGroup({ masterName: "testkit" });
  });

  afterAll(async () => {
    await stopAllStarted();
  });

  test("starts one master, two synced replicas and three sentinels that answer PING", async () => {
    expect(group.nodes).toHaveLength(3);
    expect(group.sentinelNodes).toHaveLength(3);
    expect(group.sentinels).toEqual(
      group.sentinelNodes.map((s) => ({ host: "127.0.0.1", port: s.port })),
    );
    for (const node of [...group.nodes, ...group.sentinelNodes]) {
      const client = node.client();
      expect(await client.ping()).toBe("PONG");
      client.disconnect();
    }
    expect(await group.currentMaster()).toBe(group.nodes[0]);
    expect(await Promise.all(group.nodes.map(role))).toEqual(["master", "slave", "slave"]);
  });

  test("a key written to the master is readable from a replica after WAIT 2", async () => {
    const master = (await group.currentMaster()).client();
    const replica = group.nodes[1]!.client();
    try {
      await master.set("replicated", "yes");
      expect(await master.wait(2, 5_000)).toBe(2);
      expect(await replica.get("replicated")).toBe("yes");
    } finally {
      master.disconnect();
      replica.disconnect();
    }
  });

  test("an ioredis sentinel client finds the master", async () => {
    const client = new Redis({ sentinels: [...group.sentinels], name: group.masterName });
    try {
      expect(await client.set("via-sentinel", "1")).toBe("OK");
      const port = /tcp_port:(\d+)/.exec(await client.info("server"))?.[1];
      expect(Number(port)).toBe((await group.currentMaster()).port);
    } finally {
      client.disconnect();
    }
  });

  test("failover by SENTINEL FAILOVER promotes a replica every sentinel names", async () => {
    const { oldMaster, newMaster } = await group.failover({ how: "command" });
    expect(newMaster.port).not.toBe(oldMaster.port);
    expect(await role(newMaster)).toBe("master");
    expect(await masterPortsFromAllSentinels(group)).toEqual([
      newMaster.port,
      newMaster.port,
      newMaster.port,
    ]);
    expect(await group.currentMaster()).toBe(newMaster);
  });

  test("failover by kill promotes a replica; restart brings the old master back as its replica", async () => {
    const before = await group.currentMaster();
    const writer = before.client();
    await writer.set("survives-failover", "yes");
    // The old master of the previous test may still be a zombie master, not a replica.
    const info = await writer.info("replication");
    const replicas = Number(/connected_slaves:(\d+)/.exec(info)?.[1]);
    expect(replicas).toBeGreaterThanOrEqual(1);
    expect(await writer.wait(replicas, 5_000)).toBe(replicas);
    writer.disconnect();

    const started = performance.now();
    const { oldMaster, newMaster } = await group.failover({ how: "kill" });
    // ~2.8 s here; far more means sentinels hung on a split vote or a missing replica.
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(oldMaster).toBe(before);
    expect(oldMaster.state).toBe("exited");
    expect(newMaster.port).not.toBe(oldMaster.port);
    expect(await masterPortsFromAllSentinels(group)).toEqual([
      newMaster.port,
      newMaster.port,
      newMaster.port,
    ]);

    await oldMaster.restart();
    expect(await role(oldMaster)).toBe("slave");
    const client = oldMaster.client();
    try {
      expect(await client.get("survives-failover")).toBe("yes");
    } finally {
      client.disconnect();
    }
  });

  test("failover by pause leaves a zombie the caller resumes", async () => {
    const { oldMaster, newMaster } = await group.failover({ how: "pause" });
    expect(oldMaster.state).toBe("paused");
    expect(newMaster.port).not.toBe(oldMaster.port);
    expect(await masterPortsFromAllSentinels(group)).toEqual([
      newMaster.port,
      newMaster.port,
      newMaster.port,
    ]);
    oldMaster.resume();
    // The resumed zombie still claims to be a master until sentinel converts it.
    expect(await role(oldMaster)).toBe("master");
  });
});
