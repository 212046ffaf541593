/**
 * Registers an epoch for this tier with the fence sequence's next value as its counter
 * base; a second registration of the same epoch (another server) changes nothing, so
 * every server counts from the same base. Parameter: 1 epoch.
 */
export const REGISTER_EPOCH = `INSERT IGNORE INTO mysql_fence_base (epoch, base)
  VALUES (?, NEXTVAL(mysql_lock_fence_seq))`;
