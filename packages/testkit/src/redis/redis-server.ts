import { Redis, type RedisOptions } from "ioredis";
import { ManagedServer } from "../process/managed-server.js";
import type { HostPort, RedisNode, RedisRestartOptions } from "../types.js";
import { REDIS_SERVER } from "./redis-args.js";
import { isSyncedReplicaOf } from "./replication.js";
import { withRedis } from "./with-redis.js";

/** How to launch one redis-server process. */
export interface RedisServerSpec {
  /** "redis master", "sentinel", "cluster node": used in messages and dir names. */
  readonly label: string;
  readonly port: number;
  readonly dir: string;
  /** Full redis-server arguments for one launch. */
  readonly args: (opts: RedisRestartOptions) => string[];
  /**
   * Extra readiness condition checked after PING on every launch, e.g. a restarted
   * cluster node that must rejoin its cluster before it is useful.
   */
  readonly isReady?: (node: RedisServer) => Promise<boolean>;
  /** Options for a `restart()` called without any; plain `{}` (master) if absent. */
  readonly restartDefaults?: (node: RedisServer) => Promise<RedisRestartOptions>;
}

/** A redis-server (data node, sentinel or cluster node) owned by the testkit. */
export class RedisServer extends ManagedServer implements RedisNode {
  readonly host = "127.0.0.1";
  readonly port: number;
  readonly url: string;
  readonly #spec: RedisServerSpec;

  constructor(spec: RedisServerSpec) {
    super(spec.label, spec.dir, "redis.log");
    this.#spec = spec;
    this.port = spec.port;
    this.url = `redis://${this.host}:${spec.port}`;
  }

  /**
   * Spawns the process and resolves once it answers PING, has synced as a replica, and
   * passes the spec's own check. On failure the process is killed and a StartupError
   * quotes its log.
   */
  async launch(opts: RedisRestartOptions = {}): Promise<void> {
    const child = this.spawnServer(REDIS_SERVER, this.#spec.args(opts));
    const where = `on port ${this.port}`;
    try {
      await this.waitReady(child, `${where} to answer PING`, async () => {
        return (await withRedis(this, (client) => client.ping())) === "PONG";
      });
      const master = opts.replicaOf;
      if (master) {
        await this.waitReady(child, `${where} to sync from port ${master.port}`, () =>
          isSyncedReplicaOf(this, master),
        );
      }
      const isReady = this.#spec.isReady;
      if (isReady) await this.waitReady(child, `${where} to be ready`, () => isReady(this));
    } catch (error) {
      await child.kill9();
      throw error;
    }
  }

  async restart(opts?: RedisRestartOptions): Promise<void> {
    const resolved = opts ?? (await this.#spec.restartDefaults?.(this)) ?? {};
    await this.stopProcess();
    await this.launch(resolved);
  }

  client(options: RedisOptions = {}): Redis {
    return new Redis({ host: this.host, port: this.port, ...options });
  }

  /** This node's address as a plain object, the shape ioredis and sentinels want. */
  address(): HostPort {
    return { host: this.host, port: this.port };
  }
}
