import { randomBytes } from "node:crypto";

/**
 * A fresh lockId: 16 random bytes as 22 base64url characters. Made before the store call
 * so that a grant whose reply is lost can still be released by its id (S8).
 */
export function newLockId(): string {
  return randomBytes(16).toString("base64url");
}
