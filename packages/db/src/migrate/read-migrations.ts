import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

/** One committed migration as Prisma lays it out on disk. */
export interface MigrationFile {
  /** Directory name, `<timestamp>_<name>`; also the `migration_name` Prisma records. */
  readonly name: string;
  readonly sql: string;
  /** Hex SHA-256 of the file's bytes: the `checksum` Prisma records and compares. */
  readonly checksum: string;
}

/**
 * Reads `<dir>/<name>/migration.sql` for every sub-directory, in name order (the
 * timestamp prefix makes that the order they were created in, as Prisma assumes).
 */
export async function readMigrations(dir: string): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const bytes = await readFile(join(dir, name, "migration.sql"));
      return {
        name,
        sql: bytes.toString("utf8"),
        checksum: createHash("sha256").update(bytes).digest("hex"),
      };
    }),
  );
}
