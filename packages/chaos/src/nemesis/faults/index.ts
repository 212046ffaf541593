import type { FaultKind } from "../../schedule/fault-kinds.js";
import type { FaultContext } from "../fault-context.js";
import { clockJumpServer } from "./clock-jump.js";
import { redisClusterFailover } from "./cluster-failover.js";
import { redisClusterReshard } from "./cluster-reshard.js";
import { dbAndRedisDown, wardenDbDown } from "./database-outage.js";
import { failoverLostWrites } from "./failover-lost-writes.js";
import { killWorkerHolding } from "./kill-worker.js";
import { networkFault } from "./network.js";
import { pauseHolder } from "./pause-holder.js";
import { failoverKillMaster, redisDown } from "./redis-outage.js";
import { redisKeyExpiry } from "./redis-key-expiry.js";
import { replicaPause } from "./replica-pause.js";
import { selfPauseAfterRead } from "./self-pause.js";
import { serverKill } from "./server-kill.js";

/** The injector of every fault kind; each records its start, evidence and heal. */
export const FAULTS: Readonly<Record<FaultKind, (ctx: FaultContext) => Promise<void>>> = {
  "pause-holder": pauseHolder,
  "failover-kill-master": failoverKillMaster,
  "failover-lost-writes": failoverLostWrites,
  "redis-down": redisDown,
  "warden-db-down": wardenDbDown,
  "db-and-redis-down": dbAndRedisDown,
  "clock-jump-server": clockJumpServer,
  "redis-key-expiry": redisKeyExpiry,
  "net-redis-delay": networkFault,
  "net-redis-blackhole": networkFault,
  "net-redis-reset": networkFault,
  "net-redis-refuse": networkFault,
  "net-db-delay": networkFault,
  "net-db-blackhole": networkFault,
  "net-db-reset": networkFault,
  "net-db-refuse": networkFault,
  "server-kill": serverKill,
  "kill-worker-holding": killWorkerHolding,
  "self-pause-after-read": selfPauseAfterRead,
  "redis-cluster-failover": redisClusterFailover,
  "redis-cluster-reshard": redisClusterReshard,
  "replica-pause": replicaPause,
};
