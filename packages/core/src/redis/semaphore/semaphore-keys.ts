import type { LockKey } from "@warden/contract";
import type { RedisKeys } from "../keys.js";

/**
 * The Redis keys of one semaphore, all under the mutex's hash tag `{resource#shard}` so one
 * script touches them together with the shard's fence counter and (cluster) the slot's epoch
 * record (docs/decisions/0160):
 *
 *   w:{<resource>#<shard>}:s:<businessKey>    grants: zset lockId -> expiry (Redis clock, ms)
 *   w:{<resource>#<shard>}:sf:<businessKey>   facts: hash lockId -> "permits|fence|…", t -> total
 *   w:{<resource>#<shard>}:sq:<businessKey>   fair waiters in arrival order (zset, PX)
 *   w:{<resource>#<shard>}:sqw:<businessKey>  their heartbeat deadlines (hash, PX)
 *   w:{<resource>#<shard>}:n:<businessKey>    the watch mark (RedisKeys.watch, the mutex's
 *                                             own name: same tag, same slot; decision 0206)
 *
 * A semaphore resource and a mutex resource never share a name, so the mutex's `l:`/`q:`
 * keys and these never meet; the counter `w:{…}:f` is shared on purpose: one counter per
 * shard keeps every fence of the shard growing, whichever primitive minted it.
 */
export class SemaphoreKeys {
  constructor(private readonly keys: RedisKeys) {}

  private tag(key: LockKey): string {
    return `w:{${key.resource}#${this.keys.shardOf(key.businessKey)}}`;
  }

  /** The grants and the facts of one semaphore. */
  grants(key: LockKey): [grants: string, facts: string] {
    const tag = this.tag(key);
    return [`${tag}:s:${key.businessKey}`, `${tag}:sf:${key.businessKey}`];
  }

  /** The fair queue of one semaphore and its waiters' deadlines. */
  queue(key: LockKey): [queue: string, waiters: string] {
    const tag = this.tag(key);
    return [`${tag}:sq:${key.businessKey}`, `${tag}:sqw:${key.businessKey}`];
  }

  /**
   * The seven keys a fair acquire touches (semaphoreAcquire-7.lua): grants, facts, counter,
   * epoch, queue, waiters, watch mark.
   */
  forAcquire(key: LockKey): string[] {
    return this.acquireKeys(key, true);
  }

  /**
   * The five keys a plain acquire touches (semaphoreAcquirePlain-5.lua): grants, facts,
   * counter, epoch, watch mark.
   */
  forPlainAcquire(key: LockKey): string[] {
    return this.acquireKeys(key, false);
  }

  /** An acquire's keys with the hash tag built once (it hashes the business key). */
  private acquireKeys(key: LockKey, fair: boolean): string[] {
    const tag = this.tag(key);
    const businessKey = key.businessKey;
    const keys = [
      `${tag}:s:${businessKey}`,
      `${tag}:sf:${businessKey}`,
      `${tag}:f`,
      this.keys.epoch(key),
    ];
    if (fair) keys.push(`${tag}:sq:${businessKey}`, `${tag}:sqw:${businessKey}`);
    keys.push(`${tag}:n:${businessKey}`);
    return keys;
  }

  /** The three keys a release touches (semaphoreRelease-3.lua): grants, facts, watch mark. */
  forRelease(key: LockKey): [grants: string, facts: string, watch: string] {
    const tag = this.tag(key);
    const businessKey = key.businessKey;
    return [`${tag}:s:${businessKey}`, `${tag}:sf:${businessKey}`, `${tag}:n:${businessKey}`];
  }
}
