import { fileURLToPath } from "node:url";

/**
 * The repository's `prisma/` directory: `schema.prisma` and `migrations/`. Resolved from
 * this file so scripts and tests work from any working directory.
 */
export const PRISMA_DIR = fileURLToPath(new URL("../../../prisma/", import.meta.url));

/** Where committed migrations live: `<PRISMA_DIR>/migrations/<timestamp>_<name>/migration.sql`. */
export const MIGRATIONS_DIR = fileURLToPath(
  new URL("../../../prisma/migrations/", import.meta.url),
);

/** The single source of truth for every table. */
export const SCHEMA_FILE = fileURLToPath(new URL("../../../prisma/schema.prisma", import.meta.url));
