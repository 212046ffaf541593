import type { Principal } from "./principal.js";

/**
 * The resource-name prefix `principal` is limited to, or null when it reaches every
 * resource it may otherwise see (operators, and keys without a prefix). See
 * docs/decisions/0100: outside the prefix a key sees nothing, as if those resources did
 * not exist.
 */
export function resourcePrefixOf(principal: Principal): string | null {
  if (principal.kind !== "tenant") return null;
  const prefix = principal.resourcePrefix ?? "";
  return prefix === "" ? null : prefix;
}

/**
 * A SQL LIKE pattern matching exactly the names that start with `prefix` (`%`, `_` and
 * `\` escaped; MariaDB's default escape character is `\`). On a `utf8mb4_bin` column LIKE
 * compares bytes, so this is `startsWith`.
 */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
