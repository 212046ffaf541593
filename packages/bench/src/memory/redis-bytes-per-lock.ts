import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { MysqlEpochSource, RedisLockStore } from "@warden/core";
import { Redis } from "ioredis";
import { createPool } from "mysql2/promise";
import { REDIS_DBS, redisDbUrl } from "../infra/redis-db-url.js";
import { usedMemory } from "./redis-info.js";

/** What one live lock costs in Redis, Warden's against a bare `SET NX PX` key. */
export interface RedisMemoryResult {
  readonly locks: number;
  /** (used_memory after − before) / locks for Warden's leases, in bytes. */
  readonly wardenBytesPerLock: number;
  /** The same for bare keys of the same key length with a 22-character token, in bytes. */
  readonly bareBytesPerLock: number;
  /** Length of one Warden lease key (and of every bare key), in bytes. */
  readonly keyBytes: number;
  /** Length of one Warden lease value (`lockId|fence|reentry|clientId|ownerId`), in bytes. */
  readonly wardenValueBytes: number;
  /** Length of the bare lock's value (its token), in bytes. */
  readonly bareValueBytes: number;
}

/** Acquires in flight while filling Redis. */
const FILL_CONCURRENCY = 64;
/** Bare SETs per pipeline. */
const PIPELINE = 1_000;
/** Long enough that no lease lapses before used_memory is read again, in ms. */
const LEASE_MS = 60_000;
/** A resource and business keys shaped like production's (`order:settle`, an order id). */
const RESOURCE = "order:settle";

function businessKey(index: number): string {
  return `ord-${String(index).padStart(12, "0")}`;
}

/**
 * Holds `locks` leases through Warden's Redis store, then sets as many bare keys, each in
 * an empty logical database, and compares `INFO memory` before and after. Holders look
 * like the SDK's (clientId `<host>-<pid>-<hex>`, a 22-character random ownerId), so the
 * lease value is as long as in production.
 */
export async function measureRedisBytesPerLock(
  redisUrl: string,
  epochDbUrl: string,
  locks: number,
): Promise<RedisMemoryResult> {
  const wardenUrl = redisDbUrl(redisUrl, REDIS_DBS.memoryWarden);
  const bareUrl = redisDbUrl(redisUrl, REDIS_DBS.memoryBare);
  const admin = new Redis(wardenUrl);
  const bare = new Redis(bareUrl);
  const epochPool = createPool({ uri: epochDbUrl, connectionLimit: 2 });
  let store: RedisLockStore | null = null;
  try {
    await admin.flushdb();
    await bare.flushdb();
    store = await RedisLockStore.open({
      topology: { mode: "standalone", url: wardenUrl },
      epochSource: new MysqlEpochSource(epochPool),
    });
    const clientId = `${hostname().slice(0, 40)}-${process.pid}-${randomBytes(2).toString("hex")}`;
    const before = await usedMemory(admin);
    let next = 0;
    const opened = store;
    await Promise.all(
      Array.from({ length: FILL_CONCURRENCY }, async () => {
        for (let index = next++; index < locks; index = next++) {
          const result = await opened.acquire({
            resource: RESOURCE,
            businessKey: businessKey(index),
            holder: { clientId, ownerId: randomBytes(16).toString("base64url") },
            leaseMs: LEASE_MS,
          });
          if (!result.granted) throw new Error(`memory fill: ${businessKey(index)} refused`);
        }
      }),
    );
    const after = await usedMemory(admin);
    const [, sample] = await admin.scan("0", "MATCH", "w:{*:l:*", "COUNT", 1_000);
    const sampleKey = sample[0];
    if (sampleKey === undefined) throw new Error("memory fill: no lease key found");
    const keyBytes = Buffer.byteLength(sampleKey);
    const wardenValueBytes = await admin.strlen(sampleKey);
    await admin.flushdb();

    const bareBefore = await usedMemory(bare);
    for (let start = 0; start < locks; start += PIPELINE) {
      const pipeline = bare.pipeline();
      for (let index = start; index < Math.min(locks, start + PIPELINE); index += 1) {
        const key = `lock:${String(index).padStart(keyBytes - 5, "0")}`;
        pipeline.set(key, randomBytes(16).toString("base64url"), "PX", LEASE_MS, "NX");
      }
      await pipeline.exec();
    }
    const bareAfter = await usedMemory(bare);
    await bare.flushdb();
    return {
      locks,
      wardenBytesPerLock: (after - before) / locks,
      bareBytesPerLock: (bareAfter - bareBefore) / locks,
      keyBytes,
      wardenValueBytes,
      bareValueBytes: 22,
    };
  } finally {
    await store?.close();
    admin.disconnect();
    bare.disconnect();
    await epochPool.end();
  }
}
