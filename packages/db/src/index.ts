/**
 * @warden/db: Warden's database. prisma/schema.prisma owns every table; this package
 * applies the committed migrations (`migrate`) and makes Prisma Clients for the server
 * (`createPrismaClient`). The lock hot path in @warden/core keeps raw mysql2.
 */
export { migrate, type MigrateOptions, type MigrateResult } from "./migrate/migrate.js";
export { MigrateError } from "./migrate/migrate-error.js";
export { createPrismaClient, type PrismaClient } from "./prisma-client.js";
export { isStrayDriverError } from "./stray-driver-error.js";
