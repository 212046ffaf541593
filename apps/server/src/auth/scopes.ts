import { ForbiddenError } from "../errors/forbidden-error.js";
import type { ApiKeyScope, Principal } from "./principal.js";

/** Every scope, weakest first. */
export const API_KEY_SCOPES: readonly ApiKeyScope[] = ["lock", "admin"];

/** Parses the stored comma-separated scopes; unknown words are ignored, `lock` is implied. */
export function parseScopes(stored: string): readonly ApiKeyScope[] {
  const words = new Set(stored.split(",").map((word) => word.trim()));
  return API_KEY_SCOPES.filter((scope) => scope === "lock" || words.has(scope));
}

/** The stored form of `scopes`. */
export function formatScopes(scopes: readonly ApiKeyScope[]): string {
  return API_KEY_SCOPES.filter((scope) => scope === "lock" || scopes.includes(scope)).join(",");
}

/**
 * Policy changes need an operator session (the procedure checks the role) or an
 * admin-scoped key; a lock-scoped key is refused with FORBIDDEN before anything is read.
 */
export function requirePolicyRights(principal: Principal): void {
  if (principal.kind === "tenant" && !principal.scopes.includes("admin")) {
    throw new ForbiddenError("this call needs an API key with the admin scope, or an operator");
  }
}
