// Prisma CLI configuration. Paths are relative to this file. The CLI needs a schema
// engine binary for `migrate`/`db` commands, which this project's machines cannot
// download: migrations are generated and applied by Warden's own tools instead
// (`pnpm db:migration <name>`, `pnpm db:migrate`; docs/decisions/0002).
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "../../prisma/schema.prisma",
  migrations: { path: "../../prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL },
});
