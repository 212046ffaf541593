/**
 * One line saying why the server could not start and what to do, instead of a driver's stack
 * trace: the common first-run mistakes (database missing or not migrated, a backend that does
 * not answer) name the command that fixes them.
 */
export function startupFailureMessage(error: unknown): string {
  const { errno, code, message } = (error ?? {}) as {
    errno?: unknown;
    code?: unknown;
    message?: unknown;
  };
  const text = typeof message === "string" ? message : String(error);
  if (errno === 1049) {
    return `${text}: create and migrate it with \`warden-admin migrate\` (or \`pnpm db:migrate\`), then start again`;
  }
  if (errno === 1146) {
    return `${text}: the database is not migrated; run \`warden-admin migrate\` (or \`pnpm db:migrate\`), then start again`;
  }
  if (errno === 1044 || errno === 1045) {
    return `${text}: check the user and password in DATABASE_URL and the user's grants`;
  }
  if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "ETIMEDOUT") {
    return `${text}: is the database (DATABASE_URL) or Redis (REDIS_URL / sentinels / cluster) running and reachable?`;
  }
  return text;
}
