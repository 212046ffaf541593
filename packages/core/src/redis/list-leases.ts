import { type LeaseView, type LockKey, validatePageSize, validateResource } from "@warden/contract";
import type { LeasePage, ListInput } from "../store/lock-store.js";
import type { RedisKeys } from "./keys.js";
import type { RedisClient } from "./redis-connection.js";
import { scanPage } from "./scan-pages.js";

/**
 * Lists a resource's live leases with SCAN over every master (cluster-aware), paged as
 * {@link scanPage} says: the cursor is `node:scanCursor:skip`, a lease may show up twice
 * across pages if the keyspace is resized meanwhile, and leases granted during the listing
 * may be missed.
 */
export async function listLeases(
  client: RedisClient,
  keys: RedisKeys,
  input: ListInput,
  inspect: (key: LockKey) => Promise<LeaseView | null>,
): Promise<LeasePage> {
  const resource = validateResource(input.resource);
  const limit = validatePageSize(input.limit);
  const page = await scanPage(client, keys.leasePattern(resource), limit, input.cursor);
  const leases = await Promise.all(
    page.names
      .map((redisKey) => keys.parseLease(redisKey))
      .filter((k): k is LockKey => k !== null)
      .map(inspect),
  );
  return {
    leases: leases.filter((lease): lease is LeaseView => lease !== null),
    cursor: page.cursor,
  };
}
