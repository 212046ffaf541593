import { createHash, randomBytes } from "node:crypto";

/** Every key starts with this, so leaked keys are easy to scan for. */
const KEY_PREFIX = "wdn_";

/** A freshly made API key: `key` is shown once; only `hash` is stored. */
export interface NewApiKey {
  readonly id: string;
  readonly key: string;
  /** First characters of the key, stored to tell keys apart in the console. */
  readonly prefix: string;
  readonly hash: string;
}

/** Hex SHA-256 of a high-entropy secret (API key or session token). */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/**
 * Makes an API key: 32 random bytes (256 bits), so a plain SHA-256 is enough to store it —
 * there is nothing to brute-force, unlike a password.
 */
export function generateApiKey(): NewApiKey {
  const key = `${KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
  return {
    id: randomBytes(12).toString("hex"),
    key,
    prefix: key.slice(0, 12),
    hash: hashSecret(key),
  };
}
