import type { AppRouter } from "@warden/server";
import { createTRPCClient, httpLink } from "@trpc/client";

/** A held lock as the e2e sees it. */
export interface HeldLock {
  readonly fence: string | null;
  readonly lockId: string;
  /** Aborted once the lease may be lost (a renewal was refused or failed). */
  readonly signal: AbortSignal;
  release(): Promise<void>;
}

/**
 * A minimal SDK stand-in over the public lock API: acquire, then renew at lease/3 and
 * abort the lock's signal as soon as a renewal is refused — the SDK's S4 behaviour the
 * console's force-release must trigger. (Swap for `@warden/sdk` once it is published in
 * the workspace; the assertions stay the same.)
 */
export function lockClient(apiUrl: string, apiKey: string, clientId: string) {
  const client = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: apiUrl,
        headers: { authorization: `Bearer ${apiKey}`, "x-warden-client-id": clientId },
      }),
    ],
  });
  const timers = new Set<ReturnType<typeof setInterval>>();
  return {
    async acquire(
      resource: string,
      businessKey: string,
      ownerId: string,
      leaseMs: number,
    ): Promise<HeldLock> {
      const grant = await client.lock.acquire.mutate({
        resource,
        businessKey,
        ownerId,
        leaseMs,
        waitMs: 5_000,
      });
      if (!grant.granted)
        throw new Error(`e2e: ${resource}/${businessKey} is held by ${grant.holder.clientId}`);
      const controller = new AbortController();
      const key = { resource, businessKey, lockId: grant.lockId, tier: grant.tier };
      const timer = setInterval(
        () => {
          client.lock.extend.mutate({ ...key, leaseMs }).catch((error: unknown) => {
            clearInterval(timer);
            timers.delete(timer);
            controller.abort(error);
          });
        },
        Math.floor(leaseMs / 3),
      );
      timers.add(timer);
      return {
        fence: grant.fence,
        lockId: grant.lockId,
        signal: controller.signal,
        release: async () => {
          clearInterval(timer);
          timers.delete(timer);
          await client.lock.release.mutate(key).catch(() => undefined);
        },
      };
    },
    close() {
      for (const timer of timers) clearInterval(timer);
      timers.clear();
    },
  };
}
