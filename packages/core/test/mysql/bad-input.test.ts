import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidArgumentError, MysqlLockStore, type Grant } from "../../src/index.js";
import { MemoryEpochSource } from "../support/memory-epoch-source.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openMysqlTarget, type MysqlTarget } from "./mysql-target.js";

// The conformance suite covers acquire/release/extend/list input; these are the rest.
describe("MySQL tier input checks", () => {
  let target: MysqlTarget;

  beforeAll(async () => {
    target = await openMysqlTarget();
  });
  afterAll(async () => {
    await target.close();
  });

  it("rejects bad options naming the option and its unit", async () => {
    const epochSource = new MemoryEpochSource();
    const bad = [
      { commandTimeoutMs: 0 },
      { commandTimeoutMs: 1.5 },
      { deadlockAttempts: 0 },
      { poolSize: -1 },
    ];
    for (const option of bad) {
      const error = await MysqlLockStore.open({
        connection: target.db.url,
        epochSource,
        ...option,
      }).catch((e: unknown) => e);
      expect(error, JSON.stringify(option)).toBeInstanceOf(InvalidArgumentError);
      expect((error as InvalidArgumentError).field).toBe(Object.keys(option)[0]);
    }
  });

  it("rejects bad keys, lockIds and cursors everywhere, and changes nothing", async () => {
    const resource = uniqueResource();
    const key = { resource, businessKey: "k" };
    const grant = (await target.store.acquire({
      ...key,
      holder: holder(),
      leaseMs: 10_000,
    })) as Grant;
    const calls: Array<[string, () => Promise<unknown>]> = [
      [
        "inspect bad resource",
        () => target.store.inspect({ resource: "bad resource", businessKey: "k" }),
      ],
      [
        "inspect oversize key",
        () => target.store.inspect({ resource, businessKey: "x".repeat(201) }),
      ],
      ["force-release bad lockId", () => target.store.forceRelease({ ...key, lockId: "short" })],
      ["force-release bad key", () => target.store.forceRelease({ resource, businessKey: "" })],
      [
        "extend bad lockId",
        () => target.store.extend({ ...key, lockId: "x".repeat(23), leaseMs: 1_000 }),
      ],
      ["list cursor with sign", () => target.store.list({ resource, cursor: "-1" })],
      ["list cursor zero", () => target.store.list({ resource, cursor: "0" })],
      ["list limit over 1000", () => target.store.list({ resource, limit: 1_001 })],
      [
        "waitReplicas negative",
        () => target.store.acquire({ ...key, holder: holder(), leaseMs: 1_000, waitReplicas: -1 }),
      ],
      [
        "holder missing",
        () => target.store.acquire({ ...key, holder: null as never, leaseMs: 1_000 }),
      ],
    ];
    for (const [label, call] of calls) {
      await expect(call(), label).rejects.toBeInstanceOf(InvalidArgumentError);
    }
    const after = await target.store.inspect(key);
    expect(after?.lockId).toBe(grant.lockId);
    expect(after?.reentry).toBe(1);
  });
});
