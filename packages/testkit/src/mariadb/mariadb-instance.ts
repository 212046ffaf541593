import { ManagedServer } from "../process/managed-server.js";
import type { MariaDbServer } from "../types.js";
import {
  LEAN_SIZING,
  mariaDbLayout,
  serverArgs,
  type MariaDbLayout,
  type MariaDbSizing,
} from "./mariadb-args.js";
import { withMysql } from "./with-mysql.js";

/** The mariadbd binary; Debian ships it in /usr/sbin, which root has on PATH. */
const MARIADBD = "mariadbd";

/** A private mariadbd owned by the testkit; see {@link MariaDbServer}. */
export class MariaDbInstance extends ManagedServer implements MariaDbServer {
  readonly host = "127.0.0.1";
  readonly port: number;
  readonly user = "root";
  readonly password = "";
  readonly database = "warden";
  readonly url: string;
  readonly layout: MariaDbLayout;

  constructor(
    port: number,
    dir: string,
    private readonly sizing: MariaDbSizing = LEAN_SIZING,
  ) {
    super("mariadb", dir, "mariadb.log");
    this.port = port;
    this.url = `mysql://${this.user}@${this.host}:${port}/${this.database}`;
    this.layout = mariaDbLayout(dir);
  }

  /** Spawns mariadbd and resolves once it accepts root over TCP and `warden` exists. */
  async launch(): Promise<void> {
    const child = this.spawnServer(
      MARIADBD,
      serverArgs(this.layout, this.port, this.dir, this.sizing),
    );
    const serverUrl = `mysql://${this.user}@${this.host}:${this.port}`;
    try {
      await this.waitReady(child, `on port ${this.port} to accept connections`, () =>
        withMysql(serverUrl, async (connection) => {
          await connection.query(`CREATE DATABASE IF NOT EXISTS \`${this.database}\``);
          return true;
        }),
      );
    } catch (error) {
      await child.kill9();
      throw error;
    }
  }

  async restart(): Promise<void> {
    await this.stopProcess();
    await this.launch();
  }
}
