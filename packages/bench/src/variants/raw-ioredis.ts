import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { COMPARE_AND_DELETE_COMMAND, COMPARE_AND_DELETE_LUA } from "./raw-redis-script.js";
import type { Held, Variant } from "./variant.js";

/**
 * The floor: what a minimal Redis lock library does — `SET key token NX PX` to acquire, a
 * Lua compare-and-delete to release — on one ioredis connection with default options.
 * The token is as random and as long as Warden's lockId (16 bytes, base64url).
 */
export class RawIoredisVariant implements Variant {
  readonly name = "raw-ioredis" as const;

  private constructor(
    private readonly client: Redis,
    private readonly leaseMs: number,
  ) {}

  static async open(redisUrl: string, leaseMs: number): Promise<RawIoredisVariant> {
    const client = new Redis(redisUrl, { lazyConnect: true });
    client.defineCommand(COMPARE_AND_DELETE_COMMAND, {
      numberOfKeys: 1,
      lua: COMPARE_AND_DELETE_LUA,
    });
    await client.connect();
    return new RawIoredisVariant(client, leaseMs);
  }

  async tryAcquire(businessKey: string): Promise<Held | null> {
    const key = `raw:${businessKey}`;
    const token = randomBytes(16).toString("base64url");
    const reply = await this.client.set(key, token, "PX", this.leaseMs, "NX");
    if (reply !== "OK") return null;
    return {
      finish: async () => {
        await this.client.benchCompareAndDelete1(key, token);
      },
    };
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}
