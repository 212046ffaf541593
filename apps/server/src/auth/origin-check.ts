/**
 * Whether a cookie-authenticated mutation may proceed: the browser's `Origin` must be
 * the server itself (same host) or one of the configured console origins. A missing
 * Origin is refused: every browser sends it on cross-origin and POST requests, and
 * non-browser clients authenticate with API keys, not cookies.
 */
export function originAllowed(
  origin: string | null,
  host: string | null,
  allowed: readonly string[],
): boolean {
  if (origin === null || origin === "null") return false;
  if (allowed.includes(origin)) return true;
  try {
    return host !== null && new URL(origin).host === host;
  } catch {
    return false;
  }
}
