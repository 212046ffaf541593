import { Cluster, type Redis } from "ioredis";
import { InvalidArgumentError } from "@warden/contract";
import type { RedisClient } from "./redis-connection.js";

// Keys examined per SCAN round trip.
const SCAN_COUNT = 200;

/** One page of Redis key names matching a pattern, and where the next page starts. */
export interface ScanPage {
  readonly names: string[];
  /** `node:scanCursor:skip`, or null once every master was scanned to its end. */
  readonly cursor: string | null;
}

/**
 * Up to `limit` key names matching `pattern`, with SCAN over every master (cluster-aware).
 * The cursor is `node:scanCursor:skip`: which master, where its SCAN stands, and how many
 * matches of that SCAN batch were already returned. Like SCAN, a key may show up twice
 * across pages if the keyspace is resized meanwhile, and keys written during the listing
 * may be missed. Used by the lease list and the read-write key list.
 */
export async function scanPage(
  client: RedisClient,
  pattern: string,
  limit: number,
  pageCursor: unknown,
): Promise<ScanPage> {
  const nodes = scanTargets(client);
  let { node, cursor, skip } = parseCursor(pageCursor, nodes.length);
  const names: string[] = [];
  while (node < nodes.length && names.length < limit) {
    const [next, batch] = await nodes[node]!.scan(cursor, "MATCH", pattern, "COUNT", SCAN_COUNT);
    const fresh = batch.slice(skip);
    const room = limit - names.length;
    if (fresh.length > room) {
      names.push(...fresh.slice(0, room));
      skip += room;
      break;
    }
    names.push(...fresh);
    skip = 0;
    cursor = next;
    if (next === "0") node += 1;
  }
  return { names, cursor: node >= nodes.length ? null : `${node}:${cursor}:${skip}` };
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

function parseCursor(cursor: unknown, nodeCount: number) {
  if (cursor === undefined) return { node: 0, cursor: "0", skip: 0 };
  const match = typeof cursor === "string" ? /^(\d{1,4}):(\d{1,20}):(\d{1,6})$/.exec(cursor) : null;
  const node = Number(match?.[1]);
  if (!match || node >= nodeCount || BigInt(match[2]!) > (1n << 64n) - 1n) {
    throw new InvalidArgumentError("cursor", "is not a cursor from a previous page");
  }
  return { node, cursor: match[2]!, skip: Number(match[3]) };
}
