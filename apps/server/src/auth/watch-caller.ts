import type { ApiKeyAuth } from "./api-key-auth.js";
import type { WatchedKind } from "./credential-watch.js";
import type { SessionAuth } from "./session-auth.js";

/** The credentials a call or connection came with. */
export interface CallerCredentials {
  readonly apiKey: string | null;
  readonly sessionToken: string | null;
}

/**
 * Registers a stream or socket under the credential it authenticated with (a presented
 * API key wins over a cookie, as in authentication), so revoking that credential or
 * logging out ends it. Throws QUOTA_EXCEEDED past `max` open ones of `kind`. Returns the
 * unregister function; a call with no credential registers nothing.
 */
export function watchCaller(
  auth: { readonly apiKeys: ApiKeyAuth; readonly sessions: SessionAuth },
  credentials: CallerCredentials,
  kind: WatchedKind,
  max: number,
  end: () => void,
): () => void {
  if (credentials.apiKey !== null) return auth.apiKeys.watch(credentials.apiKey, kind, max, end);
  if (credentials.sessionToken !== null)
    return auth.sessions.watch(credentials.sessionToken, kind, max, end);
  return () => undefined;
}
