import type { LoadgenConfig } from "../load/loadgen-config.js";
import type { VariantName } from "../plan/variants.js";
import { CoreRedisVariant } from "./core-redis.js";
import { RawIoredisVariant } from "./raw-ioredis.js";
import { RawMysqlVariant } from "./raw-mysql.js";
import { SdkFencedWriteVariant } from "./sdk-fenced-write.js";
import { SdkVariant, type SdkTarget } from "./sdk.js";
import type { Variant } from "./variant.js";

/** Opens one variant's connections and clients. */
export function openVariant(name: VariantName, config: LoadgenConfig): Promise<Variant> {
  const target = (resource: string): SdkTarget => ({
    serverUrl: config.serverUrl,
    apiKey: config.apiKey,
    resource,
    leaseMs: config.leaseMs,
  });
  switch (name) {
    case "raw-ioredis":
      return RawIoredisVariant.open(config.redisUrl, config.leaseMs);
    case "core-redis":
      return CoreRedisVariant.open(config.redisUrl, config.coreDbUrl, config.leaseMs);
    case "sdk":
      return SdkVariant.open("sdk", target(config.resources.sdk));
    case "sdk-mysql":
      return SdkVariant.open("sdk-mysql", target(config.resources.sdkMysql));
    case "sdk-fenced-write":
      return SdkFencedWriteVariant.open(target(config.resources.fenced), config.appDbUrl);
    case "raw-mysql":
      return RawMysqlVariant.open(config.appDbUrl, config.leaseMs);
  }
}
