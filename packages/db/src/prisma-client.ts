import { PrismaMariaDb } from "@prisma/adapter-mariadb";
import { PrismaClient } from "./generated/prisma/client.js";

/**
 * A Prisma Client for Warden's schema on `url` (`mysql://user:pass@host:port/db`),
 * through the MariaDB driver adapter: no query engine binary. The caller owns it and
 * calls `$disconnect()`. Run `pnpm db:generate` once after install to generate the
 * client it wraps.
 */
export function createPrismaClient(url: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaMariaDb(url) });
}

export type { PrismaClient };
