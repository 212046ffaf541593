/**
 * @warden/testkit: real Redis (standalone, sentinel, cluster) and MariaDB servers on
 * private loopback ports for tests, benchmarks and chaos runs, with the faults to
 * inject into them and a cleanup that survives crashed test workers.
 */
export { TESTKIT_DEFAULTS } from "./defaults.js";
export type {
  FailoverHow,
  FailoverOptions,
  HostPort,
  ManagedProcess,
  MariaDbServer,
  ProcessState,
  RedisClusterGroup,
  RedisNode,
  RedisRestartOptions,
  SentinelGroup,
  StandaloneRedis,
} from "./types.js";
export { startRedis, type StartRedisOptions } from "./redis/start-redis.js";
export { scriptCalls } from "./redis/script-calls.js";
export {
  startSentinelGroup,
  type StartSentinelGroupOptions,
} from "./sentinel/start-sentinel-group.js";
export { startCluster, type StartClusterOptions } from "./cluster/start-cluster.js";
export { beginSlotMove, onNode, slotOfKey, type SlotMove } from "./cluster/slot-move.js";
export { clusterInfo, clusterTopology, type ClusterNodeLine } from "./cluster/cluster-topology.js";
export { startMariaDb } from "./mariadb/start-mariadb.js";
export type { MariaDbSizing } from "./mariadb/mariadb-args.js";
export {
  createTestDatabase,
  type CreateTestDatabaseOptions,
  type TestDatabase,
} from "./mariadb/create-test-database.js";
export { findSharedTestMariaDb, type SharedTestMariaDb } from "./mariadb/shared-test-mariadb.js";
export { mysqlUrlFromEnv, redisUrlFromEnv } from "./env-urls.js";
export { fetchAllows, freePort } from "./net/free-port.js";
export { startRoundRobinProxy, type RoundRobinProxy } from "./net/round-robin-proxy.js";
export { listStartedPids, stopAllStarted } from "./process/stop-all-started.js";
export { reapOrphans } from "./process/reap-orphans.js";
export { trackChild, untrackChild } from "./process/track-child.js";
export { StartupError } from "./process/startup-error.js";
