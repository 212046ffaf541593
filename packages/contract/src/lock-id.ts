import { randomBytes } from "node:crypto";

const ID_BYTES = 16;
// One CSPRNG call per 256 ids: a synchronous randomBytes(16) per id cost more than the rest
// of the client's work for a grant (one getrandom round each). Same source, same
// unpredictability; `crypto.randomUUID` caches its entropy the same way.
const POOL_BYTES = ID_BYTES * 256;
let pool = Buffer.alloc(0);
let offset = 0;

/** 16 fresh random bytes (CSPRNG) as 22 base64url characters: lockIds and ownerIds. */
export function newRandomId(): string {
  if (offset + ID_BYTES > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const id = pool.toString("base64url", offset, offset + ID_BYTES);
  // Each byte is handed out once.
  pool.fill(0, offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return id;
}

/**
 * A fresh lockId ({@link newRandomId}). Made before the store call so that a grant whose
 * reply is lost can still be released by its id (docs/design.md#no-replay-no-guess).
 */
export function newLockId(): string {
  return newRandomId();
}
