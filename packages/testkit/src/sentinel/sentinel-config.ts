import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { HostPort } from "../types.js";

/** What every sentinel of a group is told about the master it watches. */
export interface SentinelSettings {
  readonly masterName: string;
  readonly master: HostPort;
  readonly downAfterMs: number;
  readonly failoverTimeoutMs: number;
}

/** Sentinels that must agree the master is down; 2 of 3 tolerates one lost sentinel. */
const QUORUM = 2;

/** Path of the config file inside a sentinel's directory. */
export function sentinelConfigPath(dir: string): string {
  return join(dir, "sentinel.conf");
}

/**
 * Writes the sentinel's config. Sentinel rewrites this file as it learns replicas,
 * peers and new masters, so a restarted sentinel resumes with what it knew.
 */
export async function writeSentinelConfig(dir: string, settings: SentinelSettings): Promise<void> {
  const name = settings.masterName;
  const lines = [
    "bind 127.0.0.1",
    "daemonize no",
    `dir "${dir}"`,
    // Peers and clients must see the loopback address, never an auto-detected one.
    "sentinel announce-ip 127.0.0.1",
    `sentinel monitor ${name} ${settings.master.host} ${settings.master.port} ${QUORUM}`,
    `sentinel down-after-milliseconds ${name} ${settings.downAfterMs}`,
    // Also the pause before a sentinel retries a failed failover (2×) and before it
    // fixes a misconfigured replica: the default 3 minutes would stall repeated failovers.
    `sentinel failover-timeout ${name} ${settings.failoverTimeoutMs}`,
    // Both replicas resync with the new master at once; the data sets are tiny.
    `sentinel parallel-syncs ${name} 2`,
  ];
  await writeFile(sentinelConfigPath(dir), `${lines.join("\n")}\n`);
}
