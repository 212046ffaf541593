import type { Redis } from "ioredis";

/** Script calls a Redis has run so far (EVALSHA, and EVAL when a script was not loaded). */
export async function scriptCalls(raw: Redis): Promise<number> {
  const stats = await raw.info("commandstats");
  let calls = 0;
  for (const match of stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)) {
    calls += Number(match[1]);
  }
  return calls;
}
