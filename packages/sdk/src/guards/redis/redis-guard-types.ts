/**
 * What the Redis guards need from your ioredis client (`Redis` or `Cluster`): scripts are
 * registered on it once with `defineCommand`, under versioned `wardenGuard_*` names.
 */
export interface RedisScriptHost {
  defineCommand(name: string, definition: { lua: string; numberOfKeys?: number }): void;
}

/** Names of the guard's fields in the protected hash. */
export interface RedisGuardFields {
  /** The fence of the last holder that wrote or claimed the hash (decimal string). */
  readonly fence: string;
  /** That holder's lockId. */
  readonly lockId: string;
}

/** Default field names: the protected hash keeps `fence` and `lock_id` next to its data. */
export const REDIS_GUARD_FIELDS: Readonly<RedisGuardFields> = Object.freeze({
  fence: "fence",
  lockId: "lock_id",
});

/** A hash protected by fences. */
export interface RedisGuardTarget {
  /** The hash's key (in a cluster, any slot: the script touches this one key only). */
  readonly key: string;
  /** Field names, if not the defaults ({@link REDIS_GUARD_FIELDS}). */
  readonly fields?: Partial<RedisGuardFields>;
}

/** A hash and the fields to write into it. */
export interface RedisWriteTarget extends RedisGuardTarget {
  /** Field = value pairs to write. */
  readonly set: Readonly<Record<string, string | number>>;
}
