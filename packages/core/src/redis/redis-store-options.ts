import { InvalidArgumentError } from "@warden/contract";
import type { EventSink } from "../events/store-event.js";
import type { EpochSource } from "../fence/epoch-source.js";
import type { RedisTopology } from "./topology.js";

/** Options of {@link RedisLockStore}. */
export interface RedisLockStoreOptions {
  readonly topology: RedisTopology;
  /** Durable source of fencing epochs (MySQL in production). */
  readonly epochSource: EpochSource;
  /** Receives every grant, refusal, release, extend, expiry and epoch change. */
  readonly onEvent?: EventSink;
  /**
   * Upper bound on one Redis call in ms; each lease call uses min(this, leaseMs / 3) so a
   * reply can never arrive after the lease it describes could have lapsed.
   * @defaultValue 1000
   */
  readonly commandTimeoutMs?: number;
  /** How long a grant waits for `waitReplicas` acknowledgements, in ms. @defaultValue 250 */
  readonly waitReplicasTimeoutMs?: number;
  /** Fence counters per resource (and cluster slots a resource spreads over). @defaultValue 16 */
  readonly shardsPerResource?: number;
  /** TCP connect timeout in ms. @defaultValue 2000 */
  readonly connectTimeoutMs?: number;
}

/** Defaults of {@link RedisLockStoreOptions}. */
export const REDIS_STORE_DEFAULTS = Object.freeze({
  commandTimeoutMs: 1_000,
  waitReplicasTimeoutMs: 250,
  shardsPerResource: 16,
  connectTimeoutMs: 2_000,
});

/** Resolved options with defaults applied; throws InvalidArgumentError naming the option. */
export function resolveRedisStoreOptions(options: RedisLockStoreOptions) {
  const resolved = { ...REDIS_STORE_DEFAULTS, ...stripUndefined(options) };
  positiveInteger("commandTimeoutMs", resolved.commandTimeoutMs);
  positiveInteger("waitReplicasTimeoutMs", resolved.waitReplicasTimeoutMs);
  positiveInteger("shardsPerResource", resolved.shardsPerResource);
  positiveInteger("connectTimeoutMs", resolved.connectTimeoutMs);
  if (resolved.shardsPerResource > 1024) {
    throw new InvalidArgumentError("shardsPerResource", "must be at most 1024");
  }
  return resolved;
}

function positiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new InvalidArgumentError(name, "must be a positive integer (ms or count)");
  }
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
