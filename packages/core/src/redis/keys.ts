import calculateSlot from "cluster-key-slot";
import { createHash } from "node:crypto";
import type { LockKey } from "../store/types.js";

/**
 * Every Redis key Warden writes is built here.
 *
 *   w:{<resource>#<shard>}:l:<businessKey>   the lease (string, PX)
 *   w:{<resource>#<shard>}:f                 the fence counter of that shard (hash, no TTL)
 *   w:ep                                     the epoch record (standalone / sentinel)
 *   w:ep:{<slot tag>}                        the epoch record of one cluster slot
 *
 * The hash tag `{resource#shard}` puts a lease and its counter in one cluster slot, so one
 * script can touch both, while the shards spread a resource over the cluster. Counters are
 * bounded (shardsPerResource per resource) and never expire: a deleted counter would
 * restart and hand the next holder a fence smaller than one already used.
 */
export class RedisKeys {
  constructor(
    private readonly shardsPerResource: number,
    private readonly cluster: boolean,
  ) {}

  /** The shard of a business key: a stable hash, so one key always maps to one counter. */
  shardOf(businessKey: string): number {
    return createHash("md5").update(businessKey).digest().readUInt32BE(0) % this.shardsPerResource;
  }

  private tag(key: LockKey): string {
    return `{${key.resource}#${this.shardOf(key.businessKey)}}`;
  }

  /** The three keys an acquire touches (lease, counter, epoch), with one hash of the key. */
  forAcquire(key: LockKey): [lease: string, counter: string, epoch: string] {
    const tag = this.tag(key);
    const lease = `w:${tag}:l:${key.businessKey}`;
    const epoch = this.cluster ? epochKeyOfSlot(calculateSlot(lease)) : "w:ep";
    return [lease, `w:${tag}:f`, epoch];
  }

  /** The lease key of one lock. */
  lease(key: LockKey): string {
    return `w:${this.tag(key)}:l:${key.businessKey}`;
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
