import type { Redis } from "ioredis";

/** `used_memory` from an `INFO memory` reply, in bytes. */
export function parseUsedMemory(info: string): number {
  const match = /^used_memory:(\d+)\r?$/m.exec(info);
  if (!match) throw new Error("INFO memory reply without used_memory");
  return Number(match[1]);
}

/** Bytes Redis has allocated for data and overhead right now (`INFO memory` used_memory). */
export async function usedMemory(client: Redis): Promise<number> {
  return parseUsedMemory(await client.info("memory"));
}
