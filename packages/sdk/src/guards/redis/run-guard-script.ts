import { InvalidArgumentError } from "@warden/contract";
import type { LuaScript } from "./generated/lua-scripts.js";
import {
  REDIS_GUARD_FIELDS,
  type RedisGuardTarget,
  type RedisScriptHost,
} from "./redis-guard-types.js";

type Command = (...args: Array<string | number>) => Promise<unknown>;

/**
 * Runs a guard script on the caller's client: registered once per client with
 * `defineCommand` (ioredis then uses EVALSHA and falls back to EVAL on NOSCRIPT).
 * Returns the script's `{ outcome, current fence }` pair.
 */
export async function runGuardScript(
  client: RedisScriptHost,
  script: LuaScript,
  target: RedisGuardTarget,
  fence: string,
  lockId: string,
  set: Readonly<Record<string, string | number>> = {},
): Promise<{ outcome: string; currentFence: string | null }> {
  const fields = { ...REDIS_GUARD_FIELDS, ...target.fields };
  if (typeof target.key !== "string" || target.key.length === 0) {
    throw new InvalidArgumentError("key", "must name the protected hash");
  }
  const pairs = Object.entries(set).flatMap(([field, value]) => {
    if (field === fields.fence || field === fields.lockId) {
      throw new InvalidArgumentError("set", `must not write the guard's own field "${field}"`);
    }
    return [field, value];
  });
  const host = client as unknown as Record<string, Command | undefined>;
  if (typeof host[script.command] !== "function") {
    client.defineCommand(script.command, { lua: script.lua, numberOfKeys: script.numberOfKeys });
  }
  const command = host[script.command] as Command;
  const reply = (await command.call(
    client,
    target.key,
    fields.fence,
    fields.lockId,
    fence,
    lockId,
    ...pairs,
  )) as [string, string];
  return { outcome: reply[0], currentFence: reply[1] === "" ? null : reply[1] };
}
