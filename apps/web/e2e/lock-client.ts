import { createWarden, type Campaign, type Lock, type Permit, type RwLease } from "@warden/sdk";

/**
 * The e2e's service under watch: a real `@warden/sdk` client (WebSocket, watchdog,
 * heartbeats) with its own clientId, so the console shows it as a connected instance
 * and a force-release must abort its lock's signal.
 */
export function lockClient(apiUrl: string, apiKey: string, clientId: string) {
  const warden = createWarden({
    url: new URL(apiUrl).origin,
    apiKey,
    clientId,
    heartbeatIntervalMs: 1_000,
  });
  return {
    acquire(
      resource: string,
      businessKey: string,
      ownerId: string,
      leaseMs: number,
      waitMs = 5_000,
    ): Promise<Lock> {
      return warden.acquire(resource, businessKey, { ownerId, leaseMs, waitMs });
    },
    /**
     * A small workload so charts, the hold-time histogram and the suggested lease have
     * data: `count` holds of 20–120 ms spread over a few keys, some of them contended.
     */
    async workload(resource: string, count: number): Promise<void> {
      const one = async (index: number) => {
        const lock = await warden.acquire(resource, `order-${index % 4}`, {
          ownerId: `batch-${index}`,
          leaseMs: 5_000,
          waitMs: 3_000,
        });
        await new Promise((resolve) => setTimeout(resolve, 20 + ((index * 37) % 100)));
        await lock.release();
      };
      for (let start = 0; start < count; start += 6) {
        await Promise.all(
          Array.from({ length: Math.min(6, count - start) }, (_, k) => one(start + k)),
        );
      }
    },
    /** `permits` of a semaphore resource's key, held (and renewed) until released. */
    permit(
      resource: string,
      businessKey: string,
      ownerId: string,
      permits: number,
    ): Promise<Permit> {
      return warden.semaphore(resource, businessKey).acquire({ permits, ownerId, waitMs: 5_000 });
    },
    /**
     * A read (shared) or write grant of an rwlock resource's key (`rwlock.acquireRead` /
     * `rwlock.acquireWrite` over the SDK's lock socket), held and renewed until released;
     * waits server-side up to `waitMs`.
     */
    rw(
      mode: "read" | "write",
      resource: string,
      businessKey: string,
      ownerId: string,
      waitMs = 5_000,
    ): Promise<RwLease> {
      const key = warden.rwLock(resource, businessKey);
      return mode === "read" ? key.read({ ownerId, waitMs }) : key.write({ ownerId, waitMs });
    },
    /**
     * Campaigns for leadership of `businessKey` (the holder of its lock leads, its fence is
     * the term); `elected` resolves with the term once this candidate leads.
     */
    async campaign(resource: string, businessKey: string) {
      let onElected: (term: string) => void = () => undefined;
      const elected = new Promise<string>((resolve) => {
        onElected = resolve;
      });
      const campaign: Campaign = await warden.campaign(resource, businessKey, {
        onElected: (term) => onElected(term),
        waitMs: 10_000,
      });
      return { campaign, elected };
    },
    close: () => warden.close(),
  };
}
