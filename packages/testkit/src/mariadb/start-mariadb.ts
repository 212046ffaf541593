import { join } from "node:path";
import { freePort } from "../net/free-port.js";
import { withFreePort } from "../net/with-free-port.js";
import { runToCompletion } from "../process/run-to-completion.js";
import { makeTempDir } from "../process/temp-dir.js";
import type { MariaDbServer } from "../types.js";
import { installArgs, type MariaDbSizing } from "./mariadb-args.js";
import { MariaDbInstance } from "./mariadb-instance.js";

/** mariadb-install-db takes ~0.5 s here; the margin is for a loaded CI box. */
const INSTALL_TIMEOUT_MS = 60_000;

/**
 * Starts a private MariaDB: a fresh datadir from mariadb-install-db, its own port and
 * socket, root without password from 127.0.0.1, and a `warden` database. For tests
 * that do not need to stop the server, {@link createTestDatabase} is much cheaper.
 * `sizing` replaces the lean test sizes (32 MB buffer pool, 8 MB redo log), e.g. for a
 * benchmark that writes more than that.
 */
export function startMariaDb(options: { sizing?: MariaDbSizing } = {}): Promise<MariaDbServer> {
  return withFreePort(freePort, async (port) => {
    const dir = await makeTempDir("mariadb");
    const server = new MariaDbInstance(port, dir, options.sizing);
    try {
      await runToCompletion({
        command: "mariadb-install-db",
        args: installArgs(server.layout),
        logPath: join(dir, "install.log"),
        timeoutMs: INSTALL_TIMEOUT_MS,
        tempDir: dir,
      });
      await server.launch();
      return server;
    } catch (error) {
      await server.stop();
      throw error;
    }
  });
}
