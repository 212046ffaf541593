/**
 * Every lock path the bench measures, in the order a round runs them. The server-backed
 * variants on the Redis tier come before the MySQL ones so that a round switches the
 * server's tier twice at most (to `mysql` before `sdk-mysql`, back before `sdk`).
 */
export const VARIANTS = [
  "raw-ioredis",
  "core-redis",
  "core-redis-fair",
  "sdk",
  "sdk-fair",
  "sdk-semaphore",
  "sdk-semaphore-fair",
  "sdk-read-lock",
  "sdk-3clients",
  "sdk-3instances",
  "sdk-fenced-write",
  "raw-mysql",
  "core-mysql",
  "sdk-mysql",
] as const;

/** One lock path: see {@link VARIANTS} and the package README. */
export type VariantName = (typeof VARIANTS)[number];

/**
 * Server instances the bench starts when a plan has a fleet variant: all on one Redis and
 * one database, as three instances behind a balancer would run (issue 14).
 */
export const FLEET_INSTANCES = 3;

/**
 * How many server instances a variant's SDK clients are spread over (round-robin, one
 * instance per client); 0 when it bypasses the server.
 */
export function instancesOf(variant: VariantName): number {
  if (variant === "sdk-3instances") return FLEET_INSTANCES;
  return serverTierOf(variant) === null ? 0 : 1;
}

/** The tier the Warden server must grant on while `variant` runs; null when it bypasses the server. */
export function serverTierOf(variant: VariantName): "redis" | "mysql" | null {
  switch (variant) {
    case "sdk":
    case "sdk-fair":
    case "sdk-semaphore":
    case "sdk-semaphore-fair":
    case "sdk-read-lock":
    case "sdk-3clients":
    case "sdk-3instances":
    case "sdk-fenced-write":
      return "redis";
    case "sdk-mysql":
      return "mysql";
    case "raw-ioredis":
    case "core-redis":
    case "core-redis-fair":
    case "raw-mysql":
    case "core-mysql":
      return null;
  }
}

/** Narrows a string to a variant name; null when it names none. */
export function asVariantName(value: string): VariantName | null {
  return (VARIANTS as readonly string[]).includes(value) ? (value as VariantName) : null;
}
