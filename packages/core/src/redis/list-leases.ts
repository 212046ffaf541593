import { Cluster, type Redis } from "ioredis";
import {
  InvalidArgumentError,
  type LeaseView,
  type LockKey,
  validatePageSize,
  validateResource,
} from "@warden/contract";
import type { LeasePage, ListInput } from "../store/lock-store.js";
import type { RedisKeys } from "./keys.js";
import type { RedisClient } from "./redis-connection.js";

// Keys examined per SCAN round trip.
const SCAN_COUNT = 200;

/**
 * Lists a resource's live leases with SCAN over every master (cluster-aware). The cursor
 * is `node:scanCursor:skip`: which master, where its SCAN stands, and how many matches of
 * that SCAN batch were already returned. Like SCAN, a lease may show up twice across pages
 * if the keyspace is resized meanwhile, and leases granted during the listing may be missed.
 */
export async function listLeases(
  client: RedisClient,
  keys: RedisKeys,
  input: ListInput,
  inspect: (key: LockKey) => Promise<LeaseView | null>,
): Promise<LeasePage> {
  const resource = validateResource(input.resource);
  const limit = validatePageSize(input.limit);
  const nodes = scanTargets(client);
  let { node, cursor, skip } = parseCursor(input.cursor, nodes.length);
  const found: string[] = [];
  while (node < nodes.length && found.length < limit) {
    const [next, batch] = await nodes[node]!.scan(
      cursor,
      "MATCH",
      keys.leasePattern(resource),
      "COUNT",
      SCAN_COUNT,
    );
    const fresh = batch.slice(skip);
    const room = limit - found.length;
    if (fresh.length > room) {
      found.push(...fresh.slice(0, room));
      skip += room;
      break;
    }
    found.push(...fresh);
    skip = 0;
    cursor = next;
    if (next === "0") node += 1;
  }
  const leases = await Promise.all(
    found
      .map((redisKey) => keys.parseLease(redisKey))
      .filter((k): k is LockKey => k !== null)
      .map(inspect),
  );
  return {
    leases: leases.filter((lease): lease is LeaseView => lease !== null),
    cursor: node >= nodes.length ? null : `${node}:${cursor}:${skip}`,
  };
}

function scanTargets(client: RedisClient): Redis[] {
  if (!(client instanceof Cluster)) return [client];
  // A stable order keeps the node index in the cursor meaningful between pages.
  return client
    .nodes("master")
    .sort((a, b) =>
      `${a.options.host}:${a.options.port}`.localeCompare(`${b.options.host}:${b.options.port}`),
    );
}

function parseCursor(cursor: string | undefined, nodeCount: number) {
  if (cursor === undefined) return { node: 0, cursor: "0", skip: 0 };
  const match = /^(\d+):(\d+):(\d+)$/.exec(cursor);
  const node = Number(match?.[1]);
  if (!match || node >= nodeCount)
    throw new InvalidArgumentError("cursor", "is not a cursor from a previous page");
  return { node, cursor: match[2]!, skip: Number(match[3]) };
}
