import {
  InvalidArgumentError,
  LIMITS,
  canonicalText,
  textProblem,
  utf8Length,
} from "@warden/contract";
import type { TenantPrincipal } from "../auth/principal.js";

/**
 * Who calls a lock use case, whatever the transport (tRPC over HTTP or WebSocket, the
 * batched lock protocol): the tenant's principal and the SDK instance's clientId, which
 * comes from the connection (header or connection params), never from a command.
 */
export interface LockCaller {
  readonly principal: TenantPrincipal;
  /** The SDK instance; acquire refuses a caller without one. */
  readonly clientId: string | null;
}

// A connection sends the same clientId with every call: checked once, then looked up.
// Bounded: cleared when full (the check is cheap, only repeated work is saved).
const CHECKED_MAX = 10_000;
const checked = new Map<string, string>();

/**
 * The caller's clientId in canonical form (NFC), or INVALID_ARGUMENT: present, 1..128
 * UTF-8 bytes, no control characters, separators or lone surrogates.
 */
export function clientIdOf(caller: LockCaller): string {
  const raw = caller.clientId;
  if (raw === null || raw.length === 0) {
    throw new InvalidArgumentError(
      "clientId",
      "identify the SDK instance: x-warden-client-id header or WebSocket connectionParams.clientId",
    );
  }
  const known = checked.get(raw);
  if (known !== undefined) return known;
  const problem = textProblem(raw);
  if (problem !== null) throw new InvalidArgumentError("clientId", problem);
  const clientId = canonicalText(raw);
  if (utf8Length(clientId) > LIMITS.maxHolderIdBytes) {
    throw new InvalidArgumentError(
      "clientId",
      `must be at most ${LIMITS.maxHolderIdBytes} bytes (UTF-8)`,
    );
  }
  if (checked.size >= CHECKED_MAX) checked.clear();
  checked.set(raw, clientId);
  return clientId;
}
