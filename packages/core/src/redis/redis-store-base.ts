import calculateSlot from "cluster-key-slot";
import { Cluster } from "ioredis";
import { LockUnavailableError, type LockKey } from "@warden/contract";
import { StoreEventEmitter } from "../events/event-emitter.js";
import { withTimeout } from "../store/with-timeout.js";
import { EpochBinder } from "./epoch-binder.js";
import { RedisKeys, epochKeyOfSlot } from "./keys.js";
import { RedisCaller } from "./redis-caller.js";
import { connectRedis, markClosing, type RedisClient } from "./redis-connection.js";
import { resolveRedisStoreOptions, type RedisLockStoreOptions } from "./redis-store-options.js";
import { UncertainGrantCleaner } from "./uncertain-grant-cleaner.js";

/**
 * What the Redis stores (mutex, semaphore, read-write lock) share (decision 0179): one
 * connection, the key layout, the event emitter, the epoch binder, the cleaner of uncertain
 * grants and the caller that types failures — set up here once — plus opening, probing,
 * raising the epoch floor, rebinding a node and closing. A store adds its scripts and
 * replies, and says how to remove a grant whose outcome is unknown.
 */
export abstract class RedisStoreBase {
  readonly tier = "redis" as const;
  protected readonly options: ReturnType<typeof resolveRedisStoreOptions>;
  protected readonly keys: RedisKeys;
  protected readonly events: StoreEventEmitter;
  protected readonly binder: EpochBinder;
  protected readonly cleaner: UncertainGrantCleaner;
  protected readonly caller: RedisCaller;
  /**
   * The connection grants that wait for replicas go on, each batch with its `WAIT`
   * (decision 0228): a `WAIT` blocks the connection it runs on until the replicas answer or
   * its timeout passes, so on {@link client} it would hold up every other call. Nothing else
   * goes on it but the clean-up of those grants when their outcome is unknown, which must
   * run after them ({@link replicaCaller}).
   */
  protected readonly replicaClient: RedisClient;
  /** As {@link caller}, for grants sent on {@link replicaClient}. */
  protected readonly replicaCaller: RedisCaller;
  private readonly replicaCleaner: UncertainGrantCleaner;
  private closed = false;

  protected constructor(
    protected readonly client: RedisClient,
    options: RedisLockStoreOptions,
  ) {
    this.options = resolveRedisStoreOptions(options);
    this.events = new StoreEventEmitter("redis", options.onEvent);
    this.keys = new RedisKeys(this.options.shardsPerResource, client instanceof Cluster);
    this.binder = new EpochBinder(client, options.epochSource, this.events);
    this.cleaner = new UncertainGrantCleaner((key, lockId, timeoutMs) =>
      this.removeUncertain(key, lockId, timeoutMs, this.client),
    );
    this.caller = new RedisCaller(this.options.commandTimeoutMs, this.cleaner, this.events);
    this.replicaClient = connectRedis(this.options.topology, this.options.connectTimeoutMs);
    // An unknown grant sent on the replica connection is removed on that connection, after
    // it: on the other, the removal could run first, find nothing and stop.
    this.replicaCleaner = new UncertainGrantCleaner((key, lockId, timeoutMs) =>
      this.removeUncertain(key, lockId, timeoutMs, this.replicaClient),
    );
    this.replicaCaller = new RedisCaller(
      this.options.commandTimeoutMs,
      this.replicaCleaner,
      this.events,
    );
  }

  /**
   * Connects, builds the store with `make`, loads the durable epoch, and returns it ready to
   * grant. With `lazy`, it returns at once and keeps reconnecting in the background (a
   * server starting while Redis or MySQL is down); grants are refused until both answer.
   */
  protected static async connect<T extends RedisStoreBase>(
    options: RedisLockStoreOptions,
    lazy: boolean,
    make: (client: RedisClient) => T,
  ): Promise<T> {
    const resolved = resolveRedisStoreOptions(options);
    const client = connectRedis(options.topology, resolved.connectTimeoutMs);
    const store = make(client);
    if (lazy) return store;
    try {
      await waitReady(client, resolved.connectTimeoutMs * 3);
      await waitReady(store.replicaClient, resolved.connectTimeoutMs * 3);
      await store.binder.ensureStarted();
    } catch (error) {
      for (const opened of [client, store.replicaClient]) {
        markClosing(opened);
        opened.disconnect();
      }
      throw error;
    }
    return store;
  }

  /**
   * Removes the grant `lockId` of `key` whose outcome is unknown (its reply was lost), on
   * `client`, the connection the grant was sent on; the cleaner retries it until Redis
   * answers or the lease has surely run out.
   */
  protected abstract removeUncertain(
    key: LockKey,
    lockId: string,
    timeoutMs: number,
    client: RedisClient,
  ): Promise<unknown>;

  /** The lowest epoch this store grants at; see {@link EpochBinder}. */
  get minEpoch(): number {
    return this.binder.minEpoch;
  }

  /** Raises the epoch floor after a tier switch: the next grant binds a fresh epoch. */
  requireEpoch(epoch: number): void {
    this.binder.require(epoch);
  }

  /** True when Redis answers PING within the command timeout. */
  async probe(): Promise<boolean> {
    try {
      await withTimeout(this.client.ping(), this.options.commandTimeoutMs);
      return true;
    } catch {
      return false;
    }
  }

  /** Binds a fresh epoch to the node that holds `key` (every slot of it on a cluster). */
  protected rebind(key: LockKey, reason: string): Promise<void> {
    return rebindNodeOf(this.client, this.keys, this.binder, key, reason);
  }

  /** Stops the cleaner and closes the connection. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.cleaner.close();
    this.replicaCleaner.close();
    await Promise.all([this.client, this.replicaClient].map((client) => this.quit(client)));
  }

  private async quit(client: RedisClient): Promise<void> {
    markClosing(client);
    try {
      await withTimeout(client.quit(), this.options.commandTimeoutMs);
    } catch {
      client.disconnect();
    }
  }
}

/**
 * Mints an epoch and binds it to the node that holds `key`: its one epoch record on
 * standalone and sentinel, the record of every slot that node serves on a cluster.
 */
export async function rebindNodeOf(
  client: RedisClient,
  keys: RedisKeys,
  binder: EpochBinder,
  key: LockKey,
  reason: string,
): Promise<void> {
  if (!(client instanceof Cluster)) {
    await binder.rebind("master", [keys.epoch(key)], reason);
    return;
  }
  const slot = calculateSlot(keys.lease(key));
  const slots = (client as unknown as { slots: string[][] }).slots;
  const master = slots[slot]?.[0] ?? `slot ${slot}`;
  const epochKeys: string[] = [];
  slots.forEach((nodes, s) => {
    if (nodes[0] === master) epochKeys.push(epochKeyOfSlot(s));
  });
  await binder.rebind(master, epochKeys.length > 0 ? epochKeys : [keys.epoch(key)], reason);
}

function waitReady(client: RedisClient, timeoutMs: number): Promise<void> {
  if (client.status === "ready") return Promise.resolve();
  return withTimeout(
    new Promise<void>((resolve) => client.once("ready", () => resolve())),
    timeoutMs,
  ).catch((cause: unknown) => {
    throw new LockUnavailableError(`Redis not ready within ${timeoutMs} ms`, { cause });
  });
}
