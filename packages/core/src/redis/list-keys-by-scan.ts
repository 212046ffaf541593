import {
  InvalidArgumentError,
  validatePageSize,
  validateResource,
  type LockKey,
} from "@warden/contract";
import type { RedisClient } from "./redis-connection.js";
import { scanPage } from "./scan-pages.js";

/** Input of a store's key list: one resource, a page at a time. */
export interface KeyListInput {
  readonly resource: string;
  readonly cursor?: string;
  readonly limit?: number;
}

/**
 * The part of a per-key state key that names the primitive: `rw` for a read-write lock's
 * state hash, `s` for a semaphore's grants (see rwKeys and SemaphoreKeys).
 */
export type ScannedState = "rw" | "s";

/** Splits a state key `w:{<resource>#<shard>}:<state>:<businessKey>` back into its key. */
function parseState(redisKey: string, state: ScannedState): LockKey | null {
  const match = new RegExp(`^w:\\{([^#}]+)#\\d+\\}:${state}:(.*)$`, "s").exec(redisKey);
  return match?.[1] && match[2] ? { resource: match[1], businessKey: match[2] } : null;
}

/**
 * Lists a resource's keys holding live grants with SCAN over every master (cluster-aware),
 * inspecting each state key found; the same paging as the mutex's lease list: the cursor is
 * `node:scanCursor:skip`. Like SCAN, a key may show up twice across pages if the keyspace is
 * resized meanwhile, and keys first granted during the listing may be missed. A state key
 * whose grants have all ended (a read-write state hash outlives its last grant by
 * `RW_RETAIN_MS`; a semaphore's grants may all have expired) is left out by `holds`.
 */
export async function listKeysByScan<View, Kept extends View>(
  client: RedisClient,
  input: KeyListInput,
  state: ScannedState,
  inspect: (key: LockKey) => Promise<View>,
  holds: (view: View) => view is Kept,
): Promise<{ keys: Kept[]; cursor: string | null }> {
  if (typeof input !== "object" || input === null) {
    throw new InvalidArgumentError("input", "must be an object");
  }
  const resource = validateResource(input.resource);
  const limit = validatePageSize(input.limit);
  const page = await scanPage(client, `w:{${resource}#*}:${state}:*`, limit, input.cursor);
  const views: View[] = await Promise.all(
    page.names
      .map((name) => parseState(name, state))
      .filter((key): key is LockKey => key !== null && key.resource === resource)
      .map(inspect),
  );
  return { keys: views.filter(holds), cursor: page.cursor };
}
