import { createPool } from "mysql2/promise";
import type { EventSink } from "../events/store-event.js";
import { LocalLockStore } from "../local/local-lock-store.js";
import { MysqlEpochSource } from "../mysql/mysql-epoch-source.js";
import { MysqlLeaseSweeper } from "../mysql/mysql-lease-sweeper.js";
import { MysqlLockStore } from "../mysql/mysql-lock-store.js";
import type { SweepListener } from "../mysql/periodic-sweeper.js";
import { RedisLockStore } from "../redis/redis-lock-store.js";
import type { RedisTopology } from "../redis/topology.js";
import { LeaseMirror, type LeaseMirrorOptions, type MirrorListener } from "./lease-mirror.js";
import { TierController, type TierControllerOptions } from "./tier-controller.js";
import { TierStateRepository } from "./tier-state-repository.js";
import { TieredLocks, teeEvents } from "./tiered-locks.js";

/** Options of {@link openTieredLocks}. */
export interface OpenTieredLocksOptions extends TierControllerOptions {
  readonly redis: RedisTopology;
  /** Warden's database: `mysql://user:pass@host:port/db`, migrated. */
  readonly mysqlUrl: string;
  /** Receives every store event of every tier (audit, metrics). */
  readonly onEvent?: EventSink;
  /** Upper bound on one Redis call, in ms. @defaultValue 1000 */
  readonly redisCommandTimeoutMs?: number;
  /** Upper bound on one MySQL statement, in ms. @defaultValue 2000 */
  readonly mysqlCommandTimeoutMs?: number;
  readonly mirror?: LeaseMirrorOptions;
  /** Told how every batch of the Redis lease mirror ended (logs). */
  readonly onMirrorBatch?: MirrorListener;
  /** Time between passes of the MySQL lease sweeper, in ms. @defaultValue 30 000 */
  readonly sweepEveryMs?: number;
  /** Told how every pass of the MySQL lease sweeper ended (metrics, logs). */
  readonly onSweep?: SweepListener;
}

/**
 * Opens the three tiers, the controller that chooses between them, the Redis lease mirror
 * and the MySQL sweeper. MySQL must answer at start (the registry lives there too); Redis
 * may be down: the controller then starts the fleet on MySQL.
 */
export async function openTieredLocks(options: OpenTieredLocksOptions): Promise<TieredLocks> {
  const mysqlTimeoutMs = options.mysqlCommandTimeoutMs ?? 2_000;
  const pool = createPool({
    uri: options.mysqlUrl,
    connectionLimit: 6,
    connectTimeout: mysqlTimeoutMs,
  });
  const epochSource = new MysqlEpochSource(pool);
  const mirror = new LeaseMirror(pool, options.mirror, options.onMirrorBatch);
  const onEvent = teeEvents(mirror, options.onEvent);
  const closeAll: Array<() => Promise<unknown>> = [() => pool.end()];
  try {
    const mysql = await MysqlLockStore.open({
      connection: options.mysqlUrl,
      epochSource,
      onEvent,
      commandTimeoutMs: mysqlTimeoutMs,
    });
    closeAll.unshift(() => mysql.close());
    const redis = await RedisLockStore.open(
      {
        topology: options.redis,
        epochSource,
        onEvent,
        ...(options.redisCommandTimeoutMs
          ? { commandTimeoutMs: options.redisCommandTimeoutMs }
          : {}),
      },
      { lazy: true },
    );
    closeAll.unshift(() => redis.close());
    const controller = new TierController(
      {
        probeRedis: () => redis.probe(),
        repository: new TierStateRepository(pool, mysqlTimeoutMs),
        epochSource,
      },
      options,
    );
    await controller.start();
    const sweeper = new MysqlLeaseSweeper(
      pool,
      options.sweepEveryMs === undefined ? {} : { intervalMs: options.sweepEveryMs },
      options.onSweep,
    );
    sweeper.start();
    mirror.start();
    return new TieredLocks({
      redis,
      mysql,
      local: new LocalLockStore(onEvent),
      controller,
      mirror,
      onClose: async () => {
        await sweeper.stop();
        await pool.end();
      },
    });
  } catch (error) {
    for (const close of closeAll) await close().catch(() => undefined);
    throw error;
  }
}
