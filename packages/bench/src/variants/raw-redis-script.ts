import type { Result } from "ioredis";

/**
 * The compare-and-delete every plain Redis lock library ships (redis.io's SET NX pattern):
 * delete the key only if it still holds our token.
 *
 *   KEYS[1]  lock key
 *   ARGV[1]  the token the holder SET
 *
 * Returns 1 when deleted, 0 when the key is gone or held under another token.
 */
export const COMPARE_AND_DELETE_LUA = `if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0`;

/** The name the script is registered under with ioredis `defineCommand`. */
export const COMPARE_AND_DELETE_COMMAND = "benchCompareAndDelete1";

declare module "ioredis" {
  interface RedisCommander<Context> {
    benchCompareAndDelete1(key: string, token: string): Result<number, Context>;
  }
}
