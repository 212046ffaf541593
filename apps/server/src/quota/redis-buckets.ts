import type { Cluster, Redis, RedisOptions } from "ioredis";
import { connectFailFast } from "../redis/connect-fail-fast.js";
import type { RedisTopology } from "@warden/core";

/** One bucket's refill: `ratePerSecond` tokens a second, at most `burst` saved up. */
export interface BucketRate {
  readonly ratePerSecond: number;
  readonly burst: number;
}

/** What one shared take answered: tokens granted, and the ms until one is due if none. */
export interface SharedTake {
  readonly got: number;
  readonly waitMs: number;
}

// Token buckets as hashes {t: tokens, ts: ms}, on Redis's own clock (TIME), so instances
// with skewed clocks share one bucket fairly. Takes `want` tokens from every key at once,
// or as many as the emptiest key has (0: only look). Keys expire once full again.
const TAKE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local got = tonumber(ARGV[1])
local wait = 0
local level = {}
for i, key in ipairs(KEYS) do
  local rate = tonumber(ARGV[2 * i])
  local burst = tonumber(ARGV[2 * i + 1])
  local b = redis.call('HMGET', key, 't', 'ts')
  local tokens = tonumber(b[1]) or burst
  local ts = tonumber(b[2]) or now
  tokens = math.min(burst, tokens + math.max(0, now - ts) * rate / 1000)
  level[i] = tokens
  local whole = math.floor(tokens)
  if whole < got then got = whole end
  if tokens < 1 then
    local w = math.ceil((1 - tokens) * 1000 / rate)
    if w > wait then wait = w end
  end
end
if got < 0 then got = 0 end
for i, key in ipairs(KEYS) do
  local rate = tonumber(ARGV[2 * i])
  local burst = tonumber(ARGV[2 * i + 1])
  redis.call('HSET', key, 't', tostring(level[i] - got), 'ts', now)
  redis.call('PEXPIRE', key, math.ceil(burst * 1000 / rate) + 1000)
end
return {got, wait}
`;

// A throttle must answer fast or not at all: no offline queue, no retries, a short timeout.
// The caller falls back to per-instance buckets when Redis does not answer.
const OPTIONS: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  commandTimeout: 250,
  connectTimeout: 2_000,
};

type TakeClient = (Redis | Cluster) & {
  wardenTakeTokens(numberOfKeys: number, ...args: (string | number)[]): Promise<[number, number]>;
};

/**
 * Token buckets every server instance shares, in Redis: login throttles, unknown-key
 * throttles and tenant quotas hold for the fleet, not per instance (issue 14). Keys are
 * `w:{thr:<name>}…`; the keys of one take must share the hash tag (one cluster slot).
 */
export class RedisBuckets {
  private readonly client: TakeClient;

  constructor(topology: RedisTopology) {
    const client = connectFailFast(topology, OPTIONS);
    client.defineCommand("wardenTakeTokens", { lua: TAKE_SCRIPT });
    // Reconnects are ioredis's; failures surface as rejected takes.
    client.on("error", () => undefined);
    this.client = client as TakeClient;
  }

  /** Takes up to `want` tokens from every bucket of `keys` at once (0: only look). */
  async take(
    keys: readonly string[],
    rates: readonly BucketRate[],
    want: number,
  ): Promise<SharedTake> {
    const args: (string | number)[] = [...keys, want];
    for (const rate of rates) args.push(rate.ratePerSecond, rate.burst);
    const [got, waitMs] = await this.client.wardenTakeTokens(keys.length, ...args);
    return { got: Number(got), waitMs: Number(waitMs) };
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
