import type { Cluster, ClusterOptions, Redis, RedisOptions } from "ioredis";

/** A TCP address; the testkit only ever listens on loopback. */
export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/**
 * Where a managed process is in its life: `running`, stopped with SIGSTOP (`paused`),
 * died or killed but restartable (`exited`), or finally `stopped` with its files removed.
 */
export type ProcessState = "running" | "paused" | "exited" | "stopped";

/** A server process the testkit started, with the faults a test can inject into it. */
export interface ManagedProcess {
  /** OS pid of the current process; changes on every restart. */
  readonly pid: number;
  /** Current life-cycle state. */
  readonly state: ProcessState;
  /** Private directory (data, config, log); removed by `stop()`. */
  readonly dir: string;
  /** stdout and stderr of every launch, appended; quote it when a chaos run goes wrong. */
  readonly logPath: string;
  /** Kills with SIGKILL and resolves once the process is gone; files stay for a restart. */
  kill9(): Promise<void>;
  /** Freezes the process with SIGSTOP: sockets stay open but nothing answers. */
  pause(): void;
  /** Thaws a paused process with SIGCONT. */
  resume(): void;
  /**
   * SIGTERM, then SIGKILL after {@link TESTKIT_DEFAULTS.stopGraceMs}; removes the temp
   * directory. Final and idempotent: a stopped process cannot be restarted.
   */
  stop(): Promise<void>;
}

/**
 * How {@link RedisNode.restart} brings a node back. Passing an object, even `{}`, is
 * taken literally; calling `restart()` without one lets the topology decide (a data
 * node of a sentinel group comes back as a replica of the current master).
 */
export interface RedisRestartOptions {
  /** Start as a replica of this master and wait until the initial sync is done. */
  readonly replicaOf?: HostPort;
}

/** One redis-server (data node or sentinel) on a private port. */
export interface RedisNode extends ManagedProcess, HostPort {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /**
   * Stops the process if it still runs, then starts it again on the same port and
   * directory and resolves once it answers PING (and, with `replicaOf`, once the sync
   * with that master is up). Data does not survive: persistence is off.
   */
  restart(opts?: RedisRestartOptions): Promise<void>;
  /** A new ioredis client for this node; the caller quits it. */
  client(options?: RedisOptions): Redis;
}

/** A standalone Redis from {@link startRedis}. */
export interface StandaloneRedis extends RedisNode {
  /** Same as `stop()`; lets callers stop every topology the same way. */
  stopAll(): Promise<void>;
}

/**
 * How a failover is forced: SIGKILL the master, SIGSTOP it (a zombie that comes back
 * when the caller resumes it), or ask politely (`SENTINEL FAILOVER` /
 * `CLUSTER FAILOVER`, the old master becomes a replica).
 */
export type FailoverHow = "kill" | "pause" | "command";

/** Options of a forced failover. */
export interface FailoverOptions {
  /** @defaultValue `"kill"` */
  readonly how?: FailoverHow;
}

/** One master, two replicas and three sentinels (quorum 2). */
export interface SentinelGroup {
  /** Name the sentinels monitor the master under. */
  readonly masterName: string;
  /** Sentinel addresses, as ioredis' `sentinels` option wants them. */
  readonly sentinels: readonly HostPort[];
  /**
   * Data nodes: the initial master first, then the two replicas. `restart()` without
   * options brings a node back as a replica of the current master, because a killed
   * master restarted on its own serves an empty data set as a master for ~10 s, until
   * sentinel converts it. Only the current master itself restarts as a master.
   */
  readonly nodes: readonly RedisNode[];
  /** The three sentinel processes. */
  readonly sentinelNodes: readonly RedisNode[];
  /** The node most sentinels name as master right now. */
  currentMaster(): Promise<RedisNode>;
  /**
   * Forces a failover and resolves once a replica reports `role:master`, every running
   * sentinel names it, and every other running data node replicates from it (~2.7 s by
   * kill with the default 1 500 ms down-after). It first waits for the sentinels to
   * settle from any earlier failover, so failovers can be chained. The old master is
   * left as the fault left it: killed (restart it), paused (resume it: a zombie still
   * claiming `role:master`), or after `command` still a master for ~10 s until
   * sentinel converts it.
   */
  failover(opts?: FailoverOptions): Promise<{ oldMaster: RedisNode; newMaster: RedisNode }>;
  /** Stops every process of the group. */
  stop(): Promise<void>;
}

/** Six nodes: three masters with one replica each. */
export interface RedisClusterGroup {
  readonly nodes: readonly RedisNode[];
  /** Addresses for ioredis' `Cluster` constructor. */
  readonly startupNodes: readonly HostPort[];
  /** Nodes that currently serve slots as masters, as the cluster itself reports. */
  masters(): Promise<RedisNode[]>;
  /** A new ioredis Cluster client; the caller quits it. */
  client(options?: ClusterOptions): Cluster;
  /**
   * Fails `master` over to its replica and resolves with that replica once it serves
   * the slots and every running node agrees (`cluster_state:ok`); ~2.3 s by kill with
   * the default 1 000 ms node timeout. It first waits until the replica has synced and
   * every peer knows it as the master's replica, so failovers can be chained. A killed
   * master restarted afterwards rejoins as a replica of the promoted node.
   */
  failoverMaster(master: RedisNode, opts?: FailoverOptions): Promise<RedisNode>;
  /** Stops every node of the cluster. */
  stop(): Promise<void>;
}

/** A private mariadbd with its own datadir, port and socket. */
export interface MariaDbServer extends ManagedProcess, HostPort {
  /** Always `root`, allowed from 127.0.0.1 without password. */
  readonly user: string;
  /** Always empty. */
  readonly password: string;
  /** Created at start: `warden`. */
  readonly database: string;
  /** `mysql://root@127.0.0.1:<port>/warden` */
  readonly url: string;
  /** Stops the process if it still runs and starts it on the same datadir and port. */
  restart(): Promise<void>;
}
