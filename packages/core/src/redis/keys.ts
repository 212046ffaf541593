import calculateSlot from "cluster-key-slot";
import { hash } from "node:crypto";
import type { LockKey } from "@warden/contract";

/**
 * Every Redis key Warden writes is built here.
 *
 *   w:{<resource>#<shard>}:l:<businessKey>   the lease (string, PX)
 *   w:{<resource>#<shard>}:f                 the fence counter of that shard (hash, no TTL)
 *   w:{<resource>#<shard>}:q:<businessKey>   fair waiters in arrival order (zset, PX)
 *   w:{<resource>#<shard>}:qw:<businessKey>  their heartbeat deadlines (hash, PX)
 *   w:{<resource>#<shard>}:d:<businessKey>   the lock-delay shadow (string, PX; decision 0175)
 *   w:{<resource>#<shard>}:n:<businessKey>   the watch mark: someone refused waits for the
 *                                            release (string, PX; decision 0206)
 *   w:ep                                     the epoch record (standalone / sentinel)
 *   w:ep:{<slot tag>}                        the epoch record of one cluster slot
 *
 * The hash tag `{resource#shard}` puts a lease and its counter in one cluster slot, so one
 * script can touch both, while the shards spread a resource over the cluster. Counters are
 * bounded (shardsPerResource per resource) and never expire: a deleted counter would
 * restart and hand the next holder a fence smaller than one already used.
 */
export class RedisKeys {
  // Two generations of business key -> shard: a key used lately is found in one of them;
  // at most 2 * SHARD_CACHE_SIZE keys are kept.
  private recentShards = new Map<string, number>();
  private olderShards = new Map<string, number>();

  constructor(
    private readonly shardsPerResource: number,
    private readonly cluster: boolean,
  ) {}

  /**
   * The shard of a business key: a stable hash (the first 4 bytes of its MD5), so one key
   * always maps to one counter. Never change it: a key moved to another shard's counter
   * could be handed a fence below one it already had. One-shot `hash` (no Hash object per
   * call), remembered for the last few thousand keys: a release or extend names the key its
   * acquire just hashed, and a hash costs more than the rest of building the keys.
   */
  shardOf(businessKey: string): number {
    if (this.shardsPerResource === 1) return 0;
    const known = this.recentShards.get(businessKey) ?? this.olderShards.get(businessKey);
    if (known !== undefined) return known;
    const shard = hash("md5", businessKey, "buffer").readUInt32BE(0) % this.shardsPerResource;
    if (this.recentShards.size >= SHARD_CACHE_SIZE) {
      this.olderShards = this.recentShards;
      this.recentShards = new Map();
    }
    this.recentShards.set(businessKey, shard);
    return shard;
  }

  private tag(key: LockKey): string {
    return `{${key.resource}#${this.shardOf(key.businessKey)}}`;
  }

  /** The three keys a plain (not fair) acquire touches: lease, counter and epoch. */
  forPlainAcquire(key: LockKey): [lease: string, counter: string, epoch: string] {
    const tag = this.tag(key);
    const lease = `w:${tag}:l:${key.businessKey}`;
    return [lease, `w:${tag}:f`, this.cluster ? epochKeyOfSlot(calculateSlot(lease)) : "w:ep"];
  }

  /**
   * The five keys an acquire touches (lease, counter, epoch, and the key's queue and its
   * waiters' deadlines, used by fair calls only), with one hash of the key.
   */
  forAcquire(
    key: LockKey,
  ): [lease: string, counter: string, epoch: string, queue: string, waiters: string] {
    const tag = this.tag(key);
    const lease = `w:${tag}:l:${key.businessKey}`;
    const epoch = this.cluster ? epochKeyOfSlot(calculateSlot(lease)) : "w:ep";
    return [
      lease,
      `w:${tag}:f`,
      epoch,
      `w:${tag}:q:${key.businessKey}`,
      `w:${tag}:qw:${key.businessKey}`,
    ];
  }

  /** The queue of fair waiters of one lock and their heartbeat deadlines. */
  queue(key: LockKey): [queue: string, waiters: string] {
    const tag = this.tag(key);
    return [`w:${tag}:q:${key.businessKey}`, `w:${tag}:qw:${key.businessKey}`];
  }

  /** The lease key of one lock. */
  lease(key: LockKey): string {
    return `w:${this.tag(key)}:l:${key.businessKey}`;
  }

  /** The lock-delay shadow of one lock (same slot as its lease). */
  delay(key: LockKey): string {
    return `w:${this.tag(key)}:d:${key.businessKey}`;
  }

  /** The watch mark of one lock (same slot as its lease; decision 0206). */
  watch(key: LockKey): string {
    return `w:${this.tag(key)}:n:${key.businessKey}`;
  }

  /** The three keys a release touches (lease, lock-delay shadow, watch mark), one hash. */
  forRelease(key: LockKey): [lease: string, delay: string, watch: string] {
    const tag = this.tag(key);
    return [
      `w:${tag}:l:${key.businessKey}`,
      `w:${tag}:d:${key.businessKey}`,
      `w:${tag}:n:${key.businessKey}`,
    ];
  }

  /** The fence counter shared by the lock's shard. */
  counter(key: LockKey): string {
    return `w:${this.tag(key)}:f`;
  }

  /** The epoch record a script on this lock's node must consult. */
  epoch(key: LockKey): string {
    return this.cluster ? epochKeyOfSlot(calculateSlot(this.lease(key))) : "w:ep";
  }

  /** SCAN pattern matching every lease of a resource. */
  leasePattern(resource: string): string {
    return `w:{${resource}#*}:l:*`;
  }

  /** Splits a lease key back into resource and business key. */
  parseLease(redisKey: string): LockKey | null {
    const match = /^w:\{([^#}]+)#\d+\}:l:(.*)$/s.exec(redisKey);
    return match?.[1] && match[2] !== undefined
      ? { resource: match[1], businessKey: match[2] }
      : null;
  }
}

/** Business keys whose shard one generation of {@link RedisKeys}' cache remembers. */
const SHARD_CACHE_SIZE = 4096;

let slotTags: string[] | undefined;

/**
 * The epoch key of a cluster slot: `w:ep:{t}` where `t` is the shortest base-36 string
 * that hashes to that slot, so the key lives in the slot it describes.
 */
export function epochKeyOfSlot(slot: number): string {
  slotTags ??= buildSlotTags();
  return `w:ep:{${slotTags[slot]}}`;
}

function buildSlotTags(): string[] {
  const tags = new Array<string>(16384);
  let filled = 0;
  for (let i = 0; filled < 16384; i += 1) {
    const tag = i.toString(36);
    const slot = calculateSlot(tag);
    if (tags[slot] === undefined) {
      tags[slot] = tag;
      filled += 1;
    }
  }
  return tags;
}
