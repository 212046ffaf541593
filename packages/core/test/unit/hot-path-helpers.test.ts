import { Writable } from "node:stream";
import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { newLockId, writeTogetherThisTurn } from "../../src/index.js";
import { RedisKeys, epochKeyOfSlot } from "../../src/redis/keys.js";
import { rwKeys, rwReleaseKeys } from "../../src/redis/rw/redis-rw-lock-store.js";
import { SemaphoreKeys } from "../../src/redis/semaphore/semaphore-keys.js";
import calculateSlot from "cluster-key-slot";
import { createHash } from "node:crypto";

/** A socket stand-in that records each syscall-sized write: one entry per write or writev. */
function recordingSocket(): { socket: Writable; writes: string[][] } {
  const writes: string[][] = [];
  const socket = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push([chunk.toString()]);
      done();
    },
    writev(chunks, done) {
      writes.push(chunks.map((c) => (c.chunk as Buffer).toString()));
      done();
    },
  });
  return { socket, writes };
}

function send(socket: Writable, text: string): void {
  writeTogetherThisTurn(socket);
  socket.write(text);
}

describe("writeTogetherThisTurn", () => {
  it("sends the first write of a turn at once and the rest of the turn in one writev, in order", async () => {
    const { socket, writes } = recordingSocket();
    send(socket, "a");
    send(socket, "b");
    send(socket, "c");
    expect(writes).toEqual([["a"]]);
    await nextTurn();
    expect(writes).toEqual([["a"], ["b", "c"]]);
    // A new turn starts over: its first write leaves at once again.
    send(socket, "d");
    expect(writes).toEqual([["a"], ["b", "c"], ["d"]]);
    await nextTurn();
    expect(writes).toEqual([["a"], ["b", "c"], ["d"]]);
  });

  it("keeps sockets apart and ignores a missing or destroyed socket", async () => {
    const one = recordingSocket();
    const two = recordingSocket();
    send(one.socket, "1a");
    send(two.socket, "2a");
    send(one.socket, "1b");
    send(two.socket, "2b");
    writeTogetherThisTurn(null);
    const gone = recordingSocket();
    gone.socket.destroy();
    writeTogetherThisTurn(gone.socket);
    await nextTurn();
    expect(one.writes).toEqual([["1a"], ["1b"]]);
    expect(two.writes).toEqual([["2a"], ["2b"]]);
    expect(one.socket.writableCorked).toBe(0);
  });
});

describe("newLockId", () => {
  it("is 22 base64url characters and never repeats across many pool refills", () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5_000; i++) {
      const id = newLockId();
      expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(5_000);
  });
});

describe("RedisKeys.forAcquire", () => {
  it("names the same keys as lease, counter, epoch and queue, standalone and cluster", () => {
    for (const cluster of [false, true]) {
      const keys = new RedisKeys(16, cluster);
      for (const businessKey of ["a", "order-42", "ü/ß:{x}"]) {
        const key = { resource: "billing", businessKey };
        expect(keys.forAcquire(key)).toEqual([
          keys.lease(key),
          keys.counter(key),
          keys.epoch(key),
          ...keys.queue(key),
        ]);
        // The queue keys share the lease's hash tag, so one cluster slot holds them all.
        for (const queueKey of keys.queue(key)) {
          expect(calculateSlot(queueKey)).toBe(calculateSlot(keys.lease(key)));
        }
      }
    }
    const key = { resource: "billing", businessKey: "b" };
    const [lease, , epoch] = new RedisKeys(16, true).forAcquire(key);
    expect(epoch).toBe(epochKeyOfSlot(calculateSlot(lease)));
  });
});

describe("RedisKeys.forPlainAcquire and the shard cache", () => {
  it("names the lease, counter and epoch keys of forAcquire, standalone and cluster", () => {
    for (const cluster of [false, true]) {
      const keys = new RedisKeys(16, cluster);
      for (const businessKey of ["a", "order-42", "ü/ß:{x}"]) {
        const key = { resource: "billing", businessKey };
        expect(keys.forPlainAcquire(key)).toEqual(keys.forAcquire(key).slice(0, 3));
        // A release's keys are the lease, delay shadow and watch mark, in the lease's slot.
        const release = keys.forRelease(key);
        expect(release).toEqual([keys.lease(key), keys.delay(key), keys.watch(key)]);
        for (const name of release) expect(calculateSlot(name)).toBe(calculateSlot(release[0]));
      }
    }
  });

  it("puts a semaphore's and a read-write lock's watch mark in their keys' slot, named as the mutex's", () => {
    for (const cluster of [false, true]) {
      const keys = new RedisKeys(16, cluster);
      const semaphores = new SemaphoreKeys(keys);
      for (const businessKey of ["a", "order-42", "ü/ß:{x}"]) {
        const key = { resource: "billing", businessKey };
        const watch = keys.watch(key);
        // Each release's (and acquire's) keys share one slot; the watch mark is the last key.
        const semaphoreRelease = semaphores.forRelease(key);
        const rwRelease = rwReleaseKeys(keys, key);
        const lists = [
          semaphoreRelease,
          rwRelease,
          semaphores.forAcquire(key),
          semaphores.forPlainAcquire(key),
          rwKeys(keys, key),
        ];
        for (const list of lists) {
          expect(list.at(-1)).toBe(watch);
          // The standalone epoch key "w:ep" has no tag: only the cluster one is in the slot.
          for (const name of list.filter((k) => k !== "w:ep"))
            expect(calculateSlot(name)).toBe(calculateSlot(list[0]!));
        }
        expect(semaphoreRelease.slice(0, 2)).toEqual(semaphores.grants(key));
        expect(rwRelease[0]).toBe(rwKeys(keys, key)[0]);
      }
    }
  });

  it("maps a key to the first 4 bytes of its MD5 mod the shard count, cached or not", () => {
    const md5Shard = (businessKey: string, shards: number) =>
      createHash("md5").update(businessKey).digest().readUInt32BE(0) % shards;
    const keys = new RedisKeys(16, false);
    // More keys than both cache generations hold, twice over: hits, misses and evictions.
    const businessKeys = Array.from({ length: 10_000 }, (_, i) => `k-${i}-ü`);
    for (let pass = 0; pass < 2; pass += 1) {
      for (const businessKey of businessKeys) {
        expect(keys.shardOf(businessKey)).toBe(md5Shard(businessKey, 16));
      }
    }
    // The same key on a store with another shard count is not answered from this cache.
    const seven = new RedisKeys(7, false);
    for (const businessKey of businessKeys.slice(0, 100)) {
      expect(seven.shardOf(businessKey)).toBe(md5Shard(businessKey, 7));
    }
    expect(new RedisKeys(1, false).shardOf("anything")).toBe(0);
  });
});
