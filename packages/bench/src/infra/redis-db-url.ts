/**
 * Redis logical databases the bench keeps apart, so that one measurement never sees
 * another's keys: the server's tier, the in-process variants, and the two memory samples
 * (each measured from an empty keyspace).
 */
export const REDIS_DBS = Object.freeze({ server: 0, inProcess: 1, memoryWarden: 2, memoryBare: 3 });

/** `url` pointed at logical database `db`. */
export function redisDbUrl(url: string, db: number): string {
  const parsed = new URL(url);
  parsed.pathname = `/${db}`;
  return parsed.toString();
}
