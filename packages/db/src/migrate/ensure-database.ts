import { createConnection, type Connection } from "mysql2/promise";
import { MigrateError } from "./migrate-error.js";

// MariaDB / MySQL error numbers met when the URL's database is missing or may not be made.
const ER_BAD_DB_ERROR = 1049;
const ER_DBACCESS_DENIED_ERROR = 1044;
const ER_ACCESS_DENIED_ERROR = 1045;
const ER_SPECIFIC_ACCESS_DENIED_ERROR = 1227;

/** Database names Warden accepts: what an unquoted MariaDB identifier may be, at most 64. */
const DATABASE_NAME = /^[A-Za-z0-9_$]{1,64}$/;

/**
 * Opens a session on `url`'s database, creating the database first when the server says it
 * does not exist (`Unknown database`). A user who may not create it gets a {@link MigrateError}
 * with the exact statements an administrator must run, not a driver stack trace.
 */
export async function connectCreatingDatabase(
  url: string,
  options: { readonly multipleStatements: boolean },
): Promise<{ connection: Connection; created: string | null }> {
  try {
    return { connection: await connect(url, options), created: null };
  } catch (error) {
    if (errnoOf(error) === ER_ACCESS_DENIED_ERROR) {
      throw new MigrateError(
        `the database server refused ${describe(url)}: wrong user or password in the URL`,
        { cause: error },
      );
    }
    // A user without rights on a database is told "access denied" whether it exists or not.
    if (errnoOf(error) === ER_DBACCESS_DENIED_ERROR) {
      throw new MigrateError(
        adminAdvice(
          url,
          (db, user) => `user "${user}" may not use database "${db}" (or it does not exist).`,
        ),
        {
          cause: error,
        },
      );
    }
    if (errnoOf(error) !== ER_BAD_DB_ERROR) throw error;
  }
  const database = databaseOf(url);
  if (!DATABASE_NAME.test(database)) {
    throw new MigrateError(
      `database "${database}" does not exist, and Warden only creates databases named with ` +
        "letters, digits, _ and $ (at most 64): create it yourself, or pick such a name",
    );
  }
  const server = new URL(url);
  server.pathname = "";
  const admin = await connect(server.toString(), { multipleStatements: false });
  try {
    await admin.query(
      `CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
  } catch (error) {
    const errno = errnoOf(error);
    if (errno === ER_DBACCESS_DENIED_ERROR || errno === ER_SPECIFIC_ACCESS_DENIED_ERROR) {
      throw new MigrateError(
        adminAdvice(
          url,
          (db, user) => `database "${db}" does not exist and user "${user}" may not create it.`,
        ),
        {
          cause: error,
        },
      );
    }
    throw error;
  } finally {
    await admin.end();
  }
  return { connection: await connect(url, options), created: database };
}

function databaseOf(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, ""));
}

/** What an administrator must run so that the URL's user can migrate the URL's database. */
function adminAdvice(url: string, problem: (database: string, user: string) => string): string {
  const database = databaseOf(url);
  const user = decodeURIComponent(new URL(url).username) || "<user>";
  return (
    `${problem(database, user)} Ask an administrator to run:\n` +
    `  CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;\n` +
    `  GRANT ALL PRIVILEGES ON \`${database}\`.* TO '${user}'@'%';\n` +
    "then migrate again."
  );
}

function connect(url: string, options: { readonly multipleStatements: boolean }) {
  return createConnection({ uri: url, multipleStatements: options.multipleStatements });
}

function errnoOf(error: unknown): number | undefined {
  const errno = (error as { errno?: unknown } | null)?.errno;
  return typeof errno === "number" ? errno : undefined;
}

/** `user@host:port/db`, never the password. */
function describe(url: string): string {
  const parsed = new URL(url);
  return `${decodeURIComponent(parsed.username) || "(no user)"}@${parsed.host}${parsed.pathname}`;
}
