const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "EAI_AGAIN", "POOL_CLOSED"]);

/**
 * True when the statement certainly did not run: the server answered with an SQL error
 * (a failed statement changes nothing), or no connection could be made. Anything else —
 * a timeout, a connection lost mid-call — leaves the outcome unknown
 * (docs/design.md#no-replay-no-guess).
 */
export function certainlyNotApplied(error: unknown): boolean {
  const fields = (error ?? {}) as { sqlState?: unknown; code?: unknown; fatal?: unknown };
  if (typeof fields.sqlState === "string" && fields.fatal !== true) return true;
  return typeof fields.code === "string" && NOT_SENT.has(fields.code);
}
