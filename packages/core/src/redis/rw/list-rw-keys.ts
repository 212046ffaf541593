import {
  InvalidArgumentError,
  validatePageSize,
  validateResource,
  type LockKey,
} from "@warden/contract";
import {
  holdsGrants,
  type RwKeyPage,
  type RwKeyView,
  type RwListInput,
} from "../../store/rw-lock-store.js";
import type { RedisClient } from "../redis-connection.js";
import { scanPage } from "../scan-pages.js";

/** SCAN pattern of every read-write state hash of a resource (see rwKeys). */
function statePattern(resource: string): string {
  return `w:{${resource}#*}:rw:*`;
}

/** Splits a read-write state key back into resource and business key. */
function parseState(redisKey: string): LockKey | null {
  const match = /^w:\{([^#}]+)#\d+\}:rw:(.*)$/s.exec(redisKey);
  return match?.[1] && match[2] ? { resource: match[1], businessKey: match[2] } : null;
}

/**
 * Lists a resource's keys with live read-write grants with SCAN over every master
 * (cluster-aware), inspecting each state hash found; the same paging as the mutex's lease
 * list: the cursor is `node:scanCursor:skip`. Like SCAN, a key may show up twice across
 * pages if the keyspace is resized meanwhile, and keys first granted during the listing may
 * be missed. State hashes outlive their last grant by `RW_RETAIN_MS`; those are skipped.
 */
export async function listRwKeys(
  client: RedisClient,
  input: RwListInput,
  inspect: (key: LockKey) => Promise<RwKeyView | null>,
): Promise<RwKeyPage> {
  if (typeof input !== "object" || input === null) {
    throw new InvalidArgumentError("input", "must be an object");
  }
  const resource = validateResource(input.resource);
  const limit = validatePageSize(input.limit);
  const page = await scanPage(client, statePattern(resource), limit, input.cursor);
  const views = await Promise.all(
    page.names
      .map(parseState)
      .filter((key): key is LockKey => key !== null && key.resource === resource)
      .map(inspect),
  );
  return {
    keys: views.filter(holdsGrants),
    cursor: page.cursor,
  };
}
