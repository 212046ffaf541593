/**
 * Migrating failed: a migration script errored, an earlier one is recorded as failed, or
 * another process held the migration lock for too long. Nothing after the failing
 * migration was applied.
 */
export class MigrateError extends Error {
  override readonly name = "MigrateError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
