// `pnpm db:migrate [--url mysql://user:pass@host:3306/db]`: applies the committed
// migrations to DATABASE_URL (or --url), creating the database when it is missing. Safe to
// run twice and from several servers. Errors are one line of what happened and what to do.
import { parseArgs } from "node:util";
import { migrate } from "../src/migrate/migrate.js";
import { MigrateError } from "../src/migrate/migrate-error.js";

const { values } = parseArgs({ options: { url: { type: "string" } } });
const url = values.url ?? process.env.DATABASE_URL;
if (!url) {
  console.error(
    "usage: pnpm db:migrate [--url mysql://user:pass@host:3306/db] (or set DATABASE_URL)",
  );
  process.exit(2);
}
try {
  const { applied, createdDatabase } = await migrate(url);
  if (createdDatabase) console.log(`created database ${createdDatabase}`);
  console.log(applied.length === 0 ? "database is up to date" : `applied: ${applied.join(", ")}`);
} catch (error) {
  console.error(`migrate failed: ${messageOf(error)}`);
  process.exit(1);
}

function messageOf(error: unknown): string {
  if (error instanceof MigrateError) return error.message;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "ETIMEDOUT") {
    return `cannot reach the database server in the URL (${String(code)}): is MariaDB running there?`;
  }
  return error instanceof Error ? error.message : String(error);
}
