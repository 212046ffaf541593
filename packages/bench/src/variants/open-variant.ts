import type { LoadgenConfig } from "../load/loadgen-config.js";
import { FLEET_INSTANCES, type VariantName } from "../plan/variants.js";
import { CoreMysqlVariant } from "./core-mysql.js";
import { CoreRedisVariant } from "./core-redis.js";
import { RawIoredisVariant } from "./raw-ioredis.js";
import { RawMysqlVariant } from "./raw-mysql.js";
import { SdkFencedWriteVariant } from "./sdk-fenced-write.js";
import { SdkReadLockVariant } from "./sdk-read-lock.js";
import { SdkSemaphoreVariant } from "./sdk-semaphore.js";
import { clientUrls, SdkVariant, type SdkTarget } from "./sdk.js";
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
    case "core-redis-fair":
      return CoreRedisVariant.open(name, config.redisUrl, config.coreDbUrl, config.leaseMs);
    case "sdk":
      return SdkVariant.open("sdk", target(config.resources.sdk));
    case "sdk-fair":
      return SdkVariant.open("sdk-fair", target(config.resources.sdkFair));
    case "sdk-semaphore":
      return SdkSemaphoreVariant.open("sdk-semaphore", target(config.resources.sdkSemaphore));
    case "sdk-semaphore-fair":
      return SdkSemaphoreVariant.open(
        "sdk-semaphore-fair",
        target(config.resources.sdkSemaphoreFair),
      );
    case "sdk-read-lock":
      return SdkReadLockVariant.open(target(config.resources.sdkReadLock));
    case "sdk-3clients":
      // The control for sdk-3instances: the same clients, all on the first instance.
      return SdkVariant.open(
        "sdk-3clients",
        target(config.resources.sdk),
        clientUrls([config.serverUrl], FLEET_INSTANCES),
      );
    case "sdk-3instances":
      return SdkVariant.open(
        "sdk-3instances",
        target(config.resources.sdk),
        clientUrls(config.serverUrls, FLEET_INSTANCES),
      );
    case "sdk-mysql":
      return SdkVariant.open("sdk-mysql", target(config.resources.sdkMysql));
    case "sdk-fenced-write":
      return SdkFencedWriteVariant.open(target(config.resources.fenced), config.appDbUrl);
    case "raw-mysql":
      return RawMysqlVariant.open(config.appDbUrl, config.leaseMs);
    case "core-mysql":
      return CoreMysqlVariant.open(config.coreDbUrl, config.leaseMs);
  }
}
