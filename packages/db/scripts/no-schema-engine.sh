#!/bin/sh
# Stands in for Prisma's schema-engine binary, which cannot be downloaded here. The Prisma
# CLI only checks that PRISMA_SCHEMA_ENGINE_BINARY exists before `prisma generate` (which
# needs no engine); any command that really runs the engine ends here, loudly.
echo "No Prisma schema engine on this machine. Use 'pnpm db:migrate' to apply migrations and" >&2
echo "'pnpm db:migration <name>' to create one (docs/decisions/0002)." >&2
exit 1
