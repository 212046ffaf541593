import type { ChaosEvent, ObserverEvent, WorkerEvent } from "../log/events.js";
import type { LedgerRow } from "../ledger/ledger-types.js";
import type { FaultWindow } from "./fault-windows.js";
import { result, type Hit, type Scope } from "./hit-scope.js";
import { keyExpiry, killServer, killWorker, staleAfterResume } from "./hits-processes.js";
import {
  bothDown,
  clockJump,
  failover,
  lostWrites,
  redisDown,
  replicaPause,
  reshard,
  wardenDbDown,
} from "./hits-stores.js";
import { netDbCut, netDelay, netRedisCut } from "./hits-network.js";

export type { Hit } from "./hit-scope.js";

/** The evidence that fault `window` took effect, judged from the log and the ledger only. */
export function hitEvidence(
  window: FaultWindow,
  events: readonly ChaosEvent[],
  ledger: readonly LedgerRow[],
  serverInstances: number,
): Hit {
  const s: Scope = {
    window,
    events,
    ledger,
    workers: events.filter((e): e is WorkerEvent => e.src === "worker"),
    observers: events.filter((e): e is ObserverEvent => e.src === "observer"),
  };
  switch (window.kind) {
    case "pause-holder":
    case "self-pause-after-read":
      return staleAfterResume(s);
    case "failover-kill-master":
    case "redis-cluster-failover":
      return failover(s);
    case "redis-cluster-reshard":
      return reshard(s);
    case "failover-lost-writes":
      return lostWrites(s);
    case "redis-down":
      return redisDown(s);
    case "replica-pause":
      return replicaPause(s);
    case "warden-db-down":
      return wardenDbDown(s);
    case "db-and-redis-down":
      return bothDown(s);
    case "clock-jump-server":
      return clockJump(s);
    case "redis-key-expiry":
      return keyExpiry(s);
    case "net-redis-delay":
    case "net-db-delay":
      return netDelay(s);
    case "net-redis-blackhole":
      return netRedisCut(s, "stalledConnections");
    case "net-redis-reset":
      return netRedisCut(s, "resets");
    case "net-redis-refuse":
      return netRedisCut(s, "resets");
    case "net-db-blackhole":
      return netDbCut(s, "stalledConnections");
    case "net-db-reset":
      return netDbCut(s, "resets");
    case "net-db-refuse":
      return netDbCut(s, "resets");
    case "server-kill":
      return killServer(s, serverInstances);
    case "kill-worker-holding":
      return killWorker(s);
    default:
      return result(false, `unknown fault kind ${window.kind}`);
  }
}
