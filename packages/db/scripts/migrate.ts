// `pnpm db:migrate [--url mysql://user:pass@host:3306/db]`: applies the committed
// migrations to DATABASE_URL (or --url). Safe to run twice and from several servers.
import { parseArgs } from "node:util";
import { migrate } from "../src/migrate/migrate.js";

const { values } = parseArgs({ options: { url: { type: "string" } } });
const url = values.url ?? process.env.DATABASE_URL;
if (!url) {
  console.error(
    "usage: pnpm db:migrate [--url mysql://user:pass@host:3306/db] (or set DATABASE_URL)",
  );
  process.exit(2);
}
const { applied } = await migrate(url);
console.log(applied.length === 0 ? "database is up to date" : `applied: ${applied.join(", ")}`);
