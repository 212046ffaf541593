/**
 * Every lock path the bench measures, in the order a round runs them. The server-backed
 * variants on the Redis tier come before the MySQL ones so that a round switches the
 * server's tier twice at most (to `mysql` before `sdk-mysql`, back before `sdk`).
 */
export const VARIANTS = [
  "raw-ioredis",
  "core-redis",
  "sdk",
  "sdk-fenced-write",
  "raw-mysql",
  "sdk-mysql",
] as const;

/** One lock path: see {@link VARIANTS} and the package README. */
export type VariantName = (typeof VARIANTS)[number];

/** The tier the Warden server must grant on while `variant` runs; null when it bypasses the server. */
export function serverTierOf(variant: VariantName): "redis" | "mysql" | null {
  switch (variant) {
    case "sdk":
    case "sdk-fenced-write":
      return "redis";
    case "sdk-mysql":
      return "mysql";
    case "raw-ioredis":
    case "core-redis":
    case "raw-mysql":
      return null;
  }
}

/** Narrows a string to a variant name; null when it names none. */
export function asVariantName(value: string): VariantName | null {
  return (VARIANTS as readonly string[]).includes(value) ? (value as VariantName) : null;
}
