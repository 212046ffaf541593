import {
  LocalRwLockStore,
  MysqlEpochSource,
  MysqlRwLockStore,
  MysqlRwSweeper,
  RedisRwLockStore,
  TieredRwLocks,
  type EventSink,
  type RedisTopology,
  type SweepListener,
  type TieredRwLocksParts,
} from "@warden/core";
import { createPool } from "mysql2/promise";

/** Options of {@link openRwLocks}. */
export interface OpenRwLocksOptions {
  readonly redis: RedisTopology;
  /** Warden's database: `mysql://user:pass@host:port/db`, migrated. */
  readonly mysqlUrl: string;
  /** Time between MySQL sweeps of dead read-write rows, in ms. @defaultValue 30 000 */
  readonly sweepEveryMs?: number;
  /** Told how every pass of the MySQL read-write sweeper ended (metrics, logs). */
  readonly onSweep?: SweepListener;
  /**
   * Told what the stores report of single grants (a lost reply's `outcome-unknown`, a grant
   * too few replicas acknowledged) and of fencing epochs: the server's event hub, which
   * audits them as it does the locks' and the semaphores'.
   */
  readonly onEvent?: EventSink;
}

/**
 * The read-write locks as the server calls them: the members of core's `TieredRwLocks` the
 * rwlock use cases use (docs/decisions/0166; `withdrawIntent` for a write wait that ends
 * without a grant, docs/decisions/0197), and the operators' list and force-release
 * (docs/decisions/0185).
 */
export type RwLocksPort = Pick<
  TieredRwLocks,
  | "tier"
  | "acquireRead"
  | "acquireWrite"
  | "release"
  | "extend"
  | "inspect"
  | "list"
  | "forceRelease"
  | "withdrawIntent"
  | "close"
>;

/**
 * Opens the read-write stores of the three tiers next to the tiered locks, routed by the
 * tier `tiers` (the server's TieredLocks) is on (decision 0165), and starts the MySQL
 * sweeper that removes the read-write rows of holders that died (expired grants, lapsed
 * intents, then key rows left with neither). MySQL must answer; Redis may be down (its store
 * connects in the background). `close()` stops the sweeper, then closes the stores.
 */
export async function openRwLocks(
  tiers: TieredRwLocksParts["tiers"],
  options: OpenRwLocksOptions,
): Promise<RwLocksPort> {
  const pool = createPool({ uri: options.mysqlUrl, connectionLimit: 2, connectTimeout: 2_000 });
  const epochSource = new MysqlEpochSource(pool);
  const closeAll: Array<() => Promise<unknown>> = [() => pool.end()];
  try {
    const onEvent = options.onEvent ? { onEvent: options.onEvent } : {};
    const mysql = await MysqlRwLockStore.open({
      connection: options.mysqlUrl,
      epochSource,
      ...onEvent,
    });
    closeAll.unshift(() => mysql.close());
    const redis = await RedisRwLockStore.open(
      { topology: options.redis, epochSource, ...onEvent },
      { lazy: true },
    );
    closeAll.unshift(() => redis.close());
    const sweeper = new MysqlRwSweeper(
      pool,
      options.sweepEveryMs === undefined ? {} : { intervalMs: options.sweepEveryMs },
      options.onSweep,
    );
    const rw = new TieredRwLocks({ tiers, redis, mysql, local: new LocalRwLockStore() });
    sweeper.start();
    let closed: Promise<void> | undefined;
    return {
      get tier() {
        return rw.tier;
      },
      acquireRead: (input, policy) => rw.acquireRead(input, policy),
      acquireWrite: (input, policy) => rw.acquireWrite(input, policy),
      release: (input) => rw.release(input),
      extend: (input) => rw.extend(input),
      inspect: (key) => rw.inspect(key),
      list: (input) => rw.list(input),
      forceRelease: (input) => rw.forceRelease(input),
      withdrawIntent: (input) => rw.withdrawIntent(input),
      // TieredRwLocks closes the three stores; the sweeper and the epochs' pool are ours.
      close: () =>
        (closed ??= (async () => {
          await sweeper.stop();
          await rw.close();
          await pool.end().catch(() => undefined);
        })()),
    };
  } catch (error) {
    for (const end of closeAll) await end().catch(() => undefined);
    throw error;
  }
}
