import { parseFlatPairs } from "../redis/parse-info.js";
import { withRedis } from "../redis/with-redis.js";
import type { HostPort } from "../types.js";

/** `SENTINEL MASTER <name>`: the master as one sentinel sees it (`port`, `flags`, `num-slaves`…). */
export function sentinelMasterView(
  sentinel: HostPort,
  masterName: string,
): Promise<Map<string, string>> {
  return withRedis(sentinel, async (client) =>
    parseFlatPairs(await client.call("SENTINEL", "MASTER", masterName)),
  );
}

/**
 * `SENTINEL GET-MASTER-ADDR-BY-NAME`: the address a sentinel gives clients. During a
 * failover the leader already names the promoted replica here while it reconfigures
 * the other replicas; its `SENTINEL MASTER` view switches ~2 s later.
 */
export async function sentinelMasterAddress(
  sentinel: HostPort,
  masterName: string,
): Promise<HostPort | undefined> {
  const reply = await withRedis(sentinel, (client) =>
    client.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName),
  );
  if (!Array.isArray(reply) || reply.length !== 2) return undefined;
  return { host: String(reply[0]), port: Number(reply[1]) };
}

/** `SENTINEL REPLICAS <name>`: one map per replica the sentinel knows. */
export function sentinelReplicaViews(
  sentinel: HostPort,
  masterName: string,
): Promise<Map<string, string>[]> {
  return withRedis(sentinel, async (client) => {
    const reply = await client.call("SENTINEL", "REPLICAS", masterName);
    return Array.isArray(reply) ? reply.map(parseFlatPairs) : [];
  });
}

/**
 * Whether a sentinel is ready to fail over: it sees the master healthy, every replica
 * connected and in sync, and every other sentinel. A sentinel that has not yet heard
 * its peers cannot reach quorum, and the failover would hang.
 */
export async function isSentinelReady(
  sentinel: HostPort,
  masterName: string,
  expected: { readonly replicas: number; readonly otherSentinels: number },
): Promise<boolean> {
  const master = await sentinelMasterView(sentinel, masterName);
  if (master.get("flags") !== "master") return false;
  if (master.get("num-other-sentinels") !== String(expected.otherSentinels)) return false;
  const replicas = await sentinelReplicaViews(sentinel, masterName);
  return (
    replicas.length === expected.replicas &&
    replicas.every((r) => r.get("flags") === "slave" && r.get("master-link-status") === "ok")
  );
}
