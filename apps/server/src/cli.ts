// Administration from a shell, on the database only (no Redis needed):
//   pnpm --filter @warden/server exec tsx src/cli.ts tenant create <id> [--name <name>] [--rps <n>]
//   pnpm --filter @warden/server exec tsx src/cli.ts apikey create <tenant> [--name <name>]
//   pnpm --filter @warden/server exec tsx src/cli.ts apikey revoke <keyId>
//   pnpm --filter @warden/server exec tsx src/cli.ts operator create <username> <viewer|operator|admin>
// DATABASE_URL names the database; WARDEN_OPERATOR_PASSWORD sets the operator's password
// (otherwise one is generated and printed once).
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { createPrismaClient } from "@warden/db";
import { generateApiKey } from "./auth/api-key.js";
import { hashPassword } from "./auth/password.js";
import { loadCliEnv, type CliEnv } from "./env.js";
import { operatorRoleSchema, tenantCreateInputSchema } from "./schemas/admin.js";

const USAGE = `usage:
  cli.ts tenant create <id> [--name <name>] [--rps <requests per second>]
  cli.ts apikey create <tenant> [--name <name>]
  cli.ts apikey revoke <keyId>
  cli.ts operator create <username> <viewer|operator|admin>`;

const { values, positionals } = parseArgs({
  options: { name: { type: "string" }, rps: { type: "string" } },
  allowPositionals: true,
});
const [noun, verb, first, second] = positionals;

let env: CliEnv;
try {
  env = loadCliEnv();
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
const prisma = createPrismaClient(env.DATABASE_URL);

async function run(): Promise<number> {
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
    console.log(`tenant ${tenant.id} created (${tenant.requestsPerSecond} requests/s)`);
    return 0;
  }
  if (noun === "apikey" && verb === "create" && first) {
    const made = generateApiKey();
    await prisma.apiKey.create({
      data: {
        id: made.id,
        tenantId: first,
        name: values.name ?? "cli",
        prefix: made.prefix,
        hash: made.hash,
      },
      select: { id: true },
    });
    console.log(`API key ${made.id} for tenant ${first} — shown once, store it now:\n${made.key}`);
    return 0;
  }
  if (noun === "apikey" && verb === "revoke" && first) {
    const { count } = await prisma.apiKey.updateMany({
      where: { id: first, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    console.log(count > 0 ? `API key ${first} revoked` : `no live API key ${first}`);
    return count > 0 ? 0 : 1;
  }
  if (noun === "operator" && verb === "create" && first && second) {
    const role = operatorRoleSchema.parse(second);
    const password = env.WARDEN_OPERATOR_PASSWORD ?? randomBytes(18).toString("base64url");
    await prisma.operator.create({
      data: { username: first, passwordHash: await hashPassword(password), role },
      select: { id: true },
    });
    console.log(
      env.WARDEN_OPERATOR_PASSWORD
        ? `operator ${first} (${role}) created`
        : `operator ${first} (${role}) created with password (shown once): ${password}`,
    );
    return 0;
  }
  console.error(USAGE);
  return 2;
}

try {
  process.exitCode = await run();
} catch (error) {
  console.error(`failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await prisma.$disconnect();
}
