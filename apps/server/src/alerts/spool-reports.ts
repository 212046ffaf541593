import type { Cluster, Redis, RedisOptions } from "ioredis";
import { connectFailFast } from "../redis/connect-fail-fast.js";
import type { RedisTopology } from "@warden/core";
import type { SpoolInput } from "./conditions.js";

const KEY = "w:{alerts}:spools";
// A report older than this describes an instance that stopped reporting (gone or cut off).
const FRESH_MS = 30_000;
// Reports of instances gone this long are deleted.
const FORGET_MS = 3_600_000;

const OPTIONS: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  commandTimeout: 1_000,
  connectTimeout: 2_000,
};

/**
 * Each instance's audit spool (events waiting for MySQL, full or not), shared in one Redis
 * hash so the evaluator sees every instance's: the spool is on each instance's local disk,
 * and it grows exactly while MySQL is unreachable, so MySQL cannot carry the report.
 */
export class SpoolReports {
  private readonly client: Redis | Cluster;

  constructor(topology: RedisTopology) {
    this.client = connectFailFast(topology, OPTIONS);
    // Reconnects are ioredis's; failures surface as rejected commands.
    this.client.on("error", () => undefined);
  }

  async report(instanceId: string, spool: { events: number; full: boolean }): Promise<void> {
    await this.client.hset(KEY, instanceId, JSON.stringify({ ...spool, at: Date.now() }));
  }

  /** The fresh reports; stale ones of long-gone instances are deleted. */
  async read(now = Date.now()): Promise<SpoolInput[]> {
    const all = await this.client.hgetall(KEY);
    const fresh: SpoolInput[] = [];
    const gone: string[] = [];
    for (const [instanceId, text] of Object.entries(all)) {
      let report: { events?: unknown; full?: unknown; at?: unknown };
      try {
        report = JSON.parse(text) as typeof report;
      } catch {
        gone.push(instanceId);
        continue;
      }
      const at = typeof report.at === "number" ? report.at : 0;
      if (now - at > FORGET_MS) gone.push(instanceId);
      else if (now - at <= FRESH_MS)
        fresh.push({
          instanceId,
          events: typeof report.events === "number" ? report.events : 0,
          full: report.full === true,
        });
    }
    if (gone.length > 0) await this.client.hdel(KEY, ...gone).catch(() => undefined);
    return fresh;
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
