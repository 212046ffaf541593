import { createPool } from "mysql2/promise";
import type { EventSink } from "../events/store-event.js";
import { LocalSemaphoreStore } from "../local/local-semaphore-store.js";
import { MysqlEpochSource } from "../mysql/mysql-epoch-source.js";
import type { SweepListener } from "../mysql/periodic-sweeper.js";
import { MysqlSemaphoreStore } from "../mysql/semaphore/mysql-semaphore-store.js";
import { MysqlSemaphoreSweeper } from "../mysql/semaphore/mysql-semaphore-sweeper.js";
import { RedisSemaphoreStore } from "../redis/semaphore/redis-semaphore-store.js";
import type { RedisTopology } from "../redis/topology.js";
import { TieredSemaphores, type TierSource } from "./tiered-semaphores.js";

/** Options of {@link openTieredSemaphores}. */
export interface OpenTieredSemaphoresOptions {
  readonly redis: RedisTopology;
  /** Warden's database: `mysql://user:pass@host:port/db`, migrated. */
  readonly mysqlUrl: string;
  /** Receives the stores' epoch events (semaphores emit no lock events yet). */
  readonly onEvent?: EventSink;
  /** Upper bound on one Redis call, in ms. @defaultValue 1000 */
  readonly redisCommandTimeoutMs?: number;
  /** Upper bound on one MySQL statement, in ms. @defaultValue 2000 */
  readonly mysqlCommandTimeoutMs?: number;
  /** See {@link TieredSemaphoresParts.switchDrainMs}. */
  readonly switchDrainMs?: number;
  /** Time between MySQL sweeps of expired permits and idle key rows, in ms. @defaultValue 30 000 */
  readonly sweepEveryMs?: number;
  /** Told how every pass of the MySQL semaphore sweeper ended (metrics, logs). */
  readonly onSweep?: SweepListener;
}

/**
 * Opens the semaphore stores of the three tiers and routes between them by the tier that
 * `tiers` (the server's TieredLocks) is on, and starts the MySQL sweeper of expired permits
 * and idle key rows (decision 0218). MySQL must answer; Redis may be down. Closing the
 * semaphores stops the sweeper.
 */
export async function openTieredSemaphores(
  tiers: TierSource,
  options: OpenTieredSemaphoresOptions,
): Promise<TieredSemaphores> {
  const mysqlTimeoutMs = options.mysqlCommandTimeoutMs ?? 2_000;
  const pool = createPool({
    uri: options.mysqlUrl,
    connectionLimit: 2,
    connectTimeout: mysqlTimeoutMs,
  });
  const epochSource = new MysqlEpochSource(pool);
  const closeAll: Array<() => Promise<unknown>> = [() => pool.end()];
  try {
    const mysql = await MysqlSemaphoreStore.open({
      connection: options.mysqlUrl,
      epochSource,
      commandTimeoutMs: mysqlTimeoutMs,
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    });
    closeAll.unshift(() => mysql.close());
    const redis = await RedisSemaphoreStore.open(
      {
        topology: options.redis,
        epochSource,
        ...(options.onEvent ? { onEvent: options.onEvent } : {}),
        ...(options.redisCommandTimeoutMs
          ? { commandTimeoutMs: options.redisCommandTimeoutMs }
          : {}),
      },
      { lazy: true },
    );
    const sweeper = new MysqlSemaphoreSweeper(
      pool,
      options.sweepEveryMs === undefined ? {} : { intervalMs: options.sweepEveryMs },
      options.onSweep,
    );
    const semaphores = new TieredSemaphores({
      tiers,
      redis,
      mysql,
      local: new LocalSemaphoreStore(),
      ...(options.switchDrainMs === undefined ? {} : { switchDrainMs: options.switchDrainMs }),
      onClose: async () => {
        await sweeper.stop();
        await pool.end();
      },
    });
    sweeper.start();
    return semaphores;
  } catch (error) {
    for (const close of closeAll) await close().catch(() => undefined);
    throw error;
  }
}
