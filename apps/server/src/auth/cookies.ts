/** Reads one cookie from a `Cookie` header; null when absent. */
export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return null;
}

/** Options of {@link sessionCookie}. */
export interface SessionCookieOptions {
  readonly secure: boolean;
  /** Lifetime in ms; 0 deletes the cookie. */
  readonly maxAgeMs: number;
}

/**
 * A `Set-Cookie` value for the session: httpOnly (no script reads it), SameSite=Strict
 * (no cross-site request carries it), Path=/.
 */
export function sessionCookie(name: string, value: string, options: SessionCookieOptions): string {
  const parts = [
    `${name}=${encodeURIComponent(value)}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Strict",
    `Max-Age=${Math.floor(options.maxAgeMs / 1000)}`,
  ];
  if (options.secure) parts.push("Secure");
  return parts.join("; ");
}
