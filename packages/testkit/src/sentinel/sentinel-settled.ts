import { TESTKIT_DEFAULTS } from "../defaults.js";
import { waitUntil } from "../process/wait-until.js";
import type { FailoverScene } from "./sentinel-failover.js";
import { sentinelMasterView, sentinelReplicaViews } from "./sentinel-views.js";

/** Sentinels refresh replica INFO every 10 s, and every 1 s while the master is down. */
const REPLICA_INFO_FRESH_MS = 10_000;

/** Whether one sentinel's view of a replica makes it a candidate for promotion. */
function isCandidate(replica: Map<string, string>, masterPort: string | undefined): boolean {
  return (
    replica.get("flags") === "slave" &&
    replica.get("master-link-status") === "ok" &&
    replica.get("master-port") === masterPort &&
    // A replica the sentinel has not had INFO from since the last switch is skipped.
    Number(replica.get("info-refresh")) < REPLICA_INFO_FRESH_MS
  );
}

/**
 * Waits until no sentinel is still busy with an earlier failover, all agree on the
 * master, and each sees a replica it could promote. {@link waitForNewMaster} returns
 * once clients are redirected (~2.5 s), while the leader reconfigures replicas for ~2 s
 * more (a new `SENTINEL FAILOVER` gets INPROG) and the others only then meet the
 * replicas of the new master (NOGOODSLAVE).
 */
export async function waitForSentinelsSettled(scene: FailoverScene): Promise<void> {
  await waitUntil(
    async () => {
      const sentinels = scene.sentinelNodes.filter((node) => node.state === "running");
      const views = await Promise.all(
        sentinels.map((s) => sentinelMasterView(s, scene.masterName)),
      );
      const ports = new Set(views.map((view) => view.get("port")));
      const [port] = ports;
      if (ports.size !== 1) throw new Error(`sentinels see masters [${[...ports].join(", ")}]`);
      if (views.some((view) => view.get("flags")?.includes("failover_in_progress"))) {
        throw new Error("a failover is still in progress");
      }
      const replicas = await Promise.all(
        sentinels.map((s) => sentinelReplicaViews(s, scene.masterName)),
      );
      if (!replicas.every((seen) => seen.some((replica) => isCandidate(replica, port)))) {
        throw new Error("some sentinel knows no replica it could promote");
      }
      return true;
    },
    {
      what: `sentinels "${scene.masterName}" to settle before a failover`,
      timeoutMs: TESTKIT_DEFAULTS.failoverWaitMs,
      intervalMs: 100,
    },
  );
}
