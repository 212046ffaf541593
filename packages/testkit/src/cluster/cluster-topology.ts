import { parseInfo } from "../redis/parse-info.js";
import { withRedis } from "../redis/with-redis.js";
import type { HostPort } from "../types.js";

/** One line of `CLUSTER NODES`. */
export interface ClusterNodeLine {
  readonly id: string;
  readonly port: number;
  /** `myself`, `master`, `slave`, `fail`, `fail?`, `handshake`… */
  readonly flags: readonly string[];
  /** Id of the master this node replicates, for replicas. */
  readonly masterId: string | undefined;
  /** Slot ranges served, like `0-5460`; empty for replicas. */
  readonly slots: readonly string[];
}

/** Parses `CLUSTER NODES` output. */
export function parseClusterNodes(text: string): ClusterNodeLine[] {
  return text
    .trim()
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => {
      const [id = "", address = "", flags = "", masterId = "-", ...rest] = line.trim().split(" ");
      // address is ip:port@busport[,hostname]
      const port = Number(address.split("@")[0]?.split(":").at(-1));
      return {
        id,
        port,
        flags: flags.split(","),
        masterId: masterId === "-" ? undefined : masterId,
        slots: rest.slice(4),
      };
    });
}

/** Whether a line describes a live master that serves slots. */
export function isServingMaster(line: ClusterNodeLine): boolean {
  return line.flags.includes("master") && !line.flags.includes("fail") && line.slots.length > 0;
}

/** The cluster as `node` sees it. */
export async function clusterTopology(node: HostPort): Promise<ClusterNodeLine[]> {
  return withRedis(node, async (client) =>
    parseClusterNodes(String(await client.call("CLUSTER", "NODES"))),
  );
}

/** `CLUSTER INFO` of `node` as a map (`cluster_state`, `cluster_known_nodes`…). */
export async function clusterInfo(node: HostPort): Promise<Map<string, string>> {
  return withRedis(node, async (client) => parseInfo(String(await client.call("CLUSTER", "INFO"))));
}
