import { migrate } from "@warden/db";
import { createTestDatabase, type TestDatabase } from "@warden/testkit";
import { createPool, type Pool } from "mysql2/promise";
import {
  MysqlEpochSource,
  MysqlLockStore,
  MysqlRwLockStore,
  MysqlSemaphoreStore,
  type EpochSource,
  type MysqlLockStoreOptions,
  type StoreEvent,
} from "../../src/index.js";

/** A migrated private database, a store on it, and a plain pool for arranging and checking rows. */
export interface MysqlTarget {
  readonly db: TestDatabase;
  readonly store: MysqlLockStore;
  readonly epochSource: EpochSource;
  /** Default mysql2 pool for test SQL (not the store's). */
  readonly admin: Pool;
  readonly events: StoreEvent[];
  /** Opens another store on the same database (another server instance). */
  openStore(options?: Partial<MysqlLockStoreOptions>): Promise<MysqlLockStore>;
  /**
   * Opens the semaphore and read-write lock stores on the same database and epoch source,
   * with the target's options; closed with the target.
   */
  openCoordination(): Promise<{ semaphores: MysqlSemaphoreStore; rw: MysqlRwLockStore }>;
  close(): Promise<void>;
}

/** Creates a fresh database, applies the committed migrations and opens a store. */
export async function openMysqlTarget(
  options: Partial<MysqlLockStoreOptions> = {},
): Promise<MysqlTarget> {
  const db = await createTestDatabase();
  await migrate(db.url);
  const admin = createPool({ uri: db.url, connectionLimit: 4 });
  const epochSource = options.epochSource ?? new MysqlEpochSource(admin);
  const events: StoreEvent[] = [];
  const stores: MysqlLockStore[] = [];
  const openStore = async (extra: Partial<MysqlLockStoreOptions> = {}) => {
    const store = await MysqlLockStore.open({
      connection: db.url,
      epochSource,
      onEvent: (event) => events.push(event),
      ...options,
      ...extra,
    });
    stores.push(store);
    return store;
  };
  const store = await openStore();
  const others: { close(): Promise<void> }[] = [];
  const openCoordination = async () => {
    const shared = { connection: db.url, epochSource, ...options };
    const semaphores = await MysqlSemaphoreStore.open(shared);
    others.push(semaphores);
    const rw = await MysqlRwLockStore.open(shared);
    others.push(rw);
    return { semaphores, rw };
  };
  return {
    db,
    store,
    epochSource,
    admin,
    events,
    openStore,
    openCoordination,
    close: async () => {
      await Promise.all([...others, ...stores].map((s) => s.close()));
      await admin.end();
      await db.drop();
    },
  };
}
