import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { WardenError } from "@warden/contract";
import { createPrismaClient, migrate, MigrateError, type PrismaClient } from "@warden/db";
import { createConnection, createPool } from "mysql2/promise";
import { ZodError } from "zod";
import { generateApiKey } from "../auth/api-key.js";
import { hashPassword } from "../auth/password.js";
import { loadCliEnv } from "../env.js";
import { ResourceRegistry } from "../registry/resource-registry.js";
import { operatorRoleSchema, tenantCreateInputSchema } from "../schemas/admin.js";
import { UsageError, type CliIo } from "./cli-io.js";
import { POLICY_USAGE } from "./policy-flags.js";
import { runResourceCommand } from "./resource-commands.js";

export const USAGE = `usage: warden <command>   (DATABASE_URL names Warden's database)
  warden-admin migrate                      create the database if missing, apply migrations
  warden-admin tenant create <id> [--name <name>] [--rps <requests per second>]
  warden-admin apikey create <tenant> [--name <name>] [--admin] [--prefix <name prefix>]
                                      (the key is shown once; --admin: it may also change
                                      resource policies; --prefix: only resources whose
                                      names start with it)
  warden-admin apikey revoke <keyId>
  warden-admin operator create <username> <viewer|operator|admin>
                                      (password from WARDEN_OPERATOR_PASSWORD, else generated)
  warden-admin resource create <tenant> <name> ${POLICY_USAGE}
  warden-admin resource update <name> ${POLICY_USAGE}
  warden-admin resource retire <name>       (refused while it has live leases; a semaphore
                                      or an rwlock: retire it through the API or console)
  warden-admin resource list [--tenant <id>] [--all]`;

/**
 * The admin CLI (`warden`, `apps/server/src/cli.ts`): works on the database only (no Redis,
 * no running server). Returns the exit code: 0 done, 1 refused or failed (the message says
 * why), 2 a usage mistake.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [noun, verb, ...rest] = argv;
  if (noun === undefined || noun === "help" || noun === "--help" || noun === "-h") {
    io.out(USAGE);
    return noun === undefined ? 2 : 0;
  }
  let env;
  try {
    env = loadCliEnv(io.env);
  } catch (error) {
    io.err((error as Error).message);
    return 2;
  }
  if (noun === "migrate") {
    try {
      const { applied, createdDatabase } = await migrate(env.DATABASE_URL, migrateOptions());
      if (createdDatabase) io.out(`created database ${createdDatabase}`);
      io.out(applied.length === 0 ? "database is up to date" : `applied: ${applied.join(", ")}`);
      return 0;
    } catch (error) {
      io.err(`migrate failed: ${error instanceof MigrateError ? error.message : String(error)}`);
      return 1;
    }
  }
  const unreachable = await databaseProblem(env.DATABASE_URL);
  if (unreachable) {
    io.err(unreachable);
    return 1;
  }
  const prisma = createPrismaClient(env.DATABASE_URL);
  const pool = createPool({ uri: env.DATABASE_URL, connectionLimit: 2 });
  try {
    if (noun === "resource") {
      return await runResourceCommand(
        verb,
        rest,
        { prisma, pool, registry: new ResourceRegistry(prisma, 0) },
        io,
      );
    }
    return await runAccountCommand(noun, verb, rest, prisma, env.WARDEN_OPERATOR_PASSWORD, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n${USAGE}`);
      return 2;
    }
    if (error instanceof WardenError) {
      io.err(error.message);
      return 1;
    }
    if (error instanceof ZodError) {
      const issue = error.issues[0];
      io.err(`${issue?.path.join(".") || "input"}: ${issue?.message ?? "invalid"}`);
      return 1;
    }
    io.err(`failed: ${(error as Error).message}`);
    return 1;
  } finally {
    await prisma.$disconnect();
    await pool.end();
  }
}

/**
 * Why the database cannot be used, in one line, or null when it can: Prisma would wait for
 * its pool to time out and then report only that.
 */
async function databaseProblem(url: string): Promise<string | null> {
  const database = decodeURIComponent(new URL(url).pathname.replace(/^\//, ""));
  try {
    const connection = await createConnection({ uri: url, connectTimeout: 5_000 });
    await connection.end();
    return null;
  } catch (error) {
    const { errno, code } = error as { errno?: number; code?: string };
    if (errno === 1049)
      return `database "${database}" does not exist: run \`warden-admin migrate\` first`;
    if (errno === 1044 || errno === 1045) {
      return `the database refused the user in DATABASE_URL: ${(error as Error).message}`;
    }
    if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "ETIMEDOUT") {
      return `cannot reach the database server in DATABASE_URL (${code}): is MariaDB running there?`;
    }
    return `cannot open the database in DATABASE_URL: ${(error as Error).message}`;
  }
}

/**
 * Built (dist/cli.js), the migrations are the copy the build put beside it, so a deployed
 * server migrates without the repository; from source, the repository's prisma/migrations.
 */
function migrateOptions(): { migrationsDir?: string } {
  const bundled = fileURLToPath(new URL("./prisma/migrations/", import.meta.url));
  return existsSync(bundled) ? { migrationsDir: bundled } : {};
}

async function runAccountCommand(
  noun: string,
  verb: string | undefined,
  args: string[],
  prisma: PrismaClient,
  operatorPassword: string | undefined,
  io: CliIo,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        name: { type: "string" },
        rps: { type: "string" },
        admin: { type: "boolean" },
        prefix: { type: "string" },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [first, second] = positionals;
  if (noun === "tenant" && verb === "create" && first) {
    const input = tenantCreateInputSchema.parse({
      id: first,
      name: values.name ?? first,
      ...(values.rps ? { requestsPerSecond: Number(values.rps) } : {}),
    });
    const tenant = await prisma.tenant.create({
      data: input,
      select: { id: true, requestsPerSecond: true },
    });
    io.out(`tenant ${tenant.id} created (${tenant.requestsPerSecond} requests/s)`);
    return 0;
  }
  if (noun === "apikey" && verb === "create" && first) {
    if (values.prefix !== undefined && !/^[A-Za-z0-9:._-]{1,128}$/.test(values.prefix)) {
      throw new UsageError("--prefix: letters, digits and ':._-', at most 128");
    }
    const made = generateApiKey();
    await prisma.apiKey.create({
      data: {
        id: made.id,
        tenantId: first,
        name: values.name ?? "cli",
        prefix: made.prefix,
        hash: made.hash,
        // Lock-only unless asked: a key that may change policy is a decision (0100).
        scopes: values.admin ? "lock,admin" : "lock",
        resourcePrefix: values.prefix ?? "",
      },
      select: { id: true },
    });
    io.out(
      `API key ${made.id} for tenant ${first} (${values.admin ? "lock, admin" : "lock"}) — shown once, store it now:\n${made.key}`,
    );
    return 0;
  }
  if (noun === "apikey" && verb === "revoke" && first) {
    const { count } = await prisma.apiKey.updateMany({
      where: { id: first, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    if (count > 0) io.out(`API key ${first} revoked`);
    else io.err(`no live API key ${first}`);
    return count > 0 ? 0 : 1;
  }
  if (noun === "operator" && verb === "create" && first && second) {
    const role = operatorRoleSchema.parse(second);
    const password = operatorPassword ?? randomBytes(18).toString("base64url");
    await prisma.operator.create({
      data: { username: first, passwordHash: await hashPassword(password), role },
      select: { id: true },
    });
    io.out(
      operatorPassword
        ? `operator ${first} (${role}) created`
        : `operator ${first} (${role}) created with password (shown once): ${password}`,
    );
    return 0;
  }
  throw new UsageError(`unknown command: ${[noun, verb].filter(Boolean).join(" ")}`);
}
