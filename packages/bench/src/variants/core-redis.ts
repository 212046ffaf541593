import { MysqlEpochSource, RedisLockStore } from "@warden/core";
import { createPool, type Pool } from "mysql2/promise";
import type { Held, Variant } from "./variant.js";

/** Resource name the in-process store locks under. */
const RESOURCE = "bench:core";

/** The server's heartbeat of a fair waiter's place (FAIR_HEARTBEAT_MS in apps/server). */
const FAIR_HEARTBEAT_MS = 500;

/**
 * Warden's Redis tier called in-process (`RedisLockStore`): the Lua scripts, fence
 * minting and validation without the server and the network hop to it. Epochs come from
 * MySQL as in production; they are read at open and on rebinds only.
 *
 * `core-redis-fair` is the same through the key's fair queue (decision 0009), every cycle
 * as a waiter that takes a place: its acquire carries `fair.waiterId`, so the script drops
 * dead places at the head, appends and renews the caller's and removes it with the grant;
 * a refused cycle gives its place up (`leaveQueue`), as a wait that ends does. That is the
 * queue's whole Redis cost per lock, next to core-redis's `cpuUsPerCycle.redis`.
 */
export class CoreRedisVariant implements Variant {
  private owners = 0;

  private constructor(
    readonly name: "core-redis" | "core-redis-fair",
    private readonly store: RedisLockStore,
    private readonly epochPool: Pool,
    private readonly clientId: string,
    private readonly leaseMs: number,
  ) {}

  static async open(
    name: "core-redis" | "core-redis-fair",
    redisUrl: string,
    epochDbUrl: string,
    leaseMs: number,
  ): Promise<CoreRedisVariant> {
    const epochPool = createPool({ uri: epochDbUrl, connectionLimit: 2 });
    try {
      const store = await RedisLockStore.open({
        topology: { mode: "standalone", url: redisUrl },
        epochSource: new MysqlEpochSource(epochPool),
      });
      return new CoreRedisVariant(name, store, epochPool, `bench-core-${process.pid}`, leaseMs);
    } catch (error) {
      await epochPool.end();
      throw error;
    }
  }

  async tryAcquire(businessKey: string): Promise<Held | null> {
    const key = { resource: RESOURCE, businessKey };
    // A distinct owner per cycle: concurrent cycles in one process must exclude each
    // other, not re-enter each other's locks.
    this.owners += 1;
    const ownerId = `o${this.owners}`;
    const holder = { clientId: this.clientId, ownerId };
    const fair = this.name === "core-redis-fair";
    const result = await this.store.acquire({
      ...key,
      holder,
      leaseMs: this.leaseMs,
      ...(fair ? { fair: { waiterId: ownerId, heartbeatMs: FAIR_HEARTBEAT_MS } } : {}),
    });
    if (!result.granted) {
      if (fair) await this.store.leaveQueue({ ...key, waiterId: ownerId });
      return null;
    }
    return {
      finish: async () => {
        await this.store.release({ ...key, lockId: result.lockId });
      },
    };
  }

  async close(): Promise<void> {
    await this.store.close();
    await this.epochPool.end();
  }
}
