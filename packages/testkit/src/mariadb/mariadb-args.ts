import { userInfo } from "node:os";
import { join } from "node:path";

/** Files of one private MariaDB inside its temp dir. */
export interface MariaDbLayout {
  readonly datadir: string;
  readonly socketPath: string;
  readonly pidFile: string;
}

/** Where the datadir, socket and pid file live inside `dir`. */
export function mariaDbLayout(dir: string): MariaDbLayout {
  return {
    datadir: join(dir, "data"),
    socketPath: join(dir, "mariadb.sock"),
    pidFile: join(dir, "mariadb.pid"),
  };
}

// mariadbd refuses to run as root unless told to; as another user it runs as that user.
const RUN_AS = `--user=${userInfo().username}`;

/** InnoDB sizes of a private server. */
export interface MariaDbSizing {
  /** e.g. "32M", "1G" */
  readonly bufferPool: string;
  /** The redo log, e.g. "8M", "512M". */
  readonly redoLog: string;
}

/**
 * Sizes for a test server: the defaults (128 MB buffer pool, 100 MB redo log) would
 * cost ~100 MB of disk per server and slow the install for nothing. A benchmark asks for
 * production-like sizes instead ({@link startMariaDb}'s `sizing`).
 */
export const LEAN_SIZING: MariaDbSizing = { bufferPool: "32M", redoLog: "8M" };

function sizingArgs(sizing: MariaDbSizing): string[] {
  return [
    `--innodb-buffer-pool-size=${sizing.bufferPool}`,
    `--innodb-log-file-size=${sizing.redoLog}`,
  ];
}

/**
 * mariadb-install-db arguments. `normal` root authentication creates root@localhost,
 * root@127.0.0.1 and root@::1 without password; the socket default would admit only
 * the OS root user through the unix socket, which mysql2 cannot speak.
 */
export function installArgs(layout: MariaDbLayout): string[] {
  return [
    "--no-defaults",
    `--datadir=${layout.datadir}`,
    RUN_AS,
    "--auth-root-authentication-method=normal",
    "--skip-test-db",
    "--skip-name-resolve",
    ...sizingArgs(LEAN_SIZING),
  ];
}

/**
 * mariadbd arguments. `--no-defaults` keeps the machine's my.cnf (and the shared
 * server's port and socket) out; InnoDB keeps its default durability so data written
 * before a SIGKILL survives the restart.
 */
export function serverArgs(
  layout: MariaDbLayout,
  port: number,
  dir: string,
  sizing: MariaDbSizing = LEAN_SIZING,
): string[] {
  return [
    "--no-defaults",
    `--datadir=${layout.datadir}`,
    `--port=${port}`,
    "--bind-address=127.0.0.1",
    `--socket=${layout.socketPath}`,
    `--pid-file=${layout.pidFile}`,
    `--tmpdir=${dir}`,
    RUN_AS,
    "--skip-name-resolve",
    ...sizingArgs(sizing),
  ];
}
