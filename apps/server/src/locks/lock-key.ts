import type { LockKey } from "@warden/contract";

/** A map key for one lock; NUL never appears in validated names or business keys. */
export function keyString(key: LockKey): string {
  return `${key.resource}\u0000${key.businessKey}`;
}

/** Inverse of {@link keyString}; null for anything else. */
export function parseKeyString(value: string): LockKey | null {
  const cut = value.indexOf("\u0000");
  if (cut <= 0) return null;
  return { resource: value.slice(0, cut), businessKey: value.slice(cut + 1) };
}
