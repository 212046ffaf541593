import type { PoolOptions } from "mysql2/promise";
import { InvalidArgumentError } from "@warden/contract";
import type { EventSink } from "../events/store-event.js";
import type { EpochSource } from "../fence/epoch-source.js";

/** Options of {@link MysqlLockStore} (the class lives in mysql-lock-store.ts). */
export interface MysqlLockStoreOptions {
  /**
   * Where the tables are: a `mysql://user:pass@host:port/db` URL or mysql2 pool options.
   * The store opens and owns its pool, because its decisions read affected-row counts
   * and so need CLIENT_FOUND_ROWS off, which a shared pool may not have.
   */
  readonly connection: string | PoolOptions;
  /** Durable source of fencing epochs (normally a `MysqlEpochSource` on the same database). */
  readonly epochSource: EpochSource;
  /** Receives every grant, refusal, release, extend, expiry and epoch change. */
  readonly onEvent?: EventSink;
  /**
   * Upper bound on one statement in ms; past it the outcome is unknown
   * (docs/design.md#no-replay-no-guess). A slow grant still reports a true remaining lease: it is
   * read on the database clock after the statement, and a lease that already ended is never
   * reported as granted.
   * @defaultValue 2000
   */
  readonly commandTimeoutMs?: number;
  /** Attempts of a statement that InnoDB keeps picking as a deadlock victim. @defaultValue 3 */
  readonly deadlockAttempts?: number;
  /** Connections in the store's pool. @defaultValue 10 */
  readonly poolSize?: number;
}

/** Defaults of {@link MysqlLockStoreOptions}. */
export const MYSQL_STORE_DEFAULTS = Object.freeze({
  commandTimeoutMs: 2_000,
  deadlockAttempts: 3,
  poolSize: 10,
});

/** Resolved options with defaults applied; throws InvalidArgumentError naming the option. */
export function resolveMysqlStoreOptions(options: MysqlLockStoreOptions) {
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const resolved = { ...MYSQL_STORE_DEFAULTS, ...defined } as typeof MYSQL_STORE_DEFAULTS &
    MysqlLockStoreOptions;
  positiveInteger("commandTimeoutMs", resolved.commandTimeoutMs, "ms");
  positiveInteger("deadlockAttempts", resolved.deadlockAttempts, "attempts");
  positiveInteger("poolSize", resolved.poolSize, "connections");
  if (typeof options.connection !== "string" && typeof options.connection !== "object") {
    throw new InvalidArgumentError("connection", "must be a mysql:// URL or mysql2 pool options");
  }
  return resolved;
}

function positiveInteger(name: string, value: number, unit: string): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new InvalidArgumentError(name, `must be a positive integer (${unit})`);
  }
}
