/**
 * True for an error of the MariaDB driver under Prisma's adapter (`SqlError` of the
 * `mariadb` package: it carries `sqlState`/`errno`) that reached the process without a
 * caller: every query's own failure comes back to its caller wrapped by Prisma
 * (`PrismaClientKnownRequestError`, `DriverAdapterError`), so a bare `SqlError` at the
 * process level was raised by the driver's connection machinery itself — a socket closed
 * while no command was in flight on a connection with no `error` listener, or the
 * promise of the `KILL` it sends when it destroys a busy connection, which it never
 * awaits. Such an error concerns one dead connection; the pool makes new ones, and the
 * tier controller's MySQL probe already reports the database down.
 */
export function isStrayDriverError(error: unknown): boolean {
  if (!(error instanceof Error) || error.name !== "SqlError") return false;
  const fields = error as Error & { sqlState?: unknown; errno?: unknown };
  return typeof fields.sqlState === "string" || typeof fields.errno === "number";
}
