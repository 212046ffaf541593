import type { WorkerEvent } from "../log/events.js";

/**
 * A grant whose fence was not above one granted earlier for the same account
 * (docs/design.md#fences-only-grow).
 */
export interface FenceRegression {
  readonly account: string;
  /** When the later grant arrived (monotonic ms). */
  readonly mono: number;
  readonly earlier: { readonly lockId: string; readonly fence: string };
  readonly later: { readonly lockId: string; readonly fence: string };
}

interface Grant {
  readonly account: string;
  readonly lockId: string;
  readonly fence: bigint;
  /** When the worker asked (its `acquire` line). */
  readonly askedAt: number;
  /** When the grant arrived (its `granted` line). */
  readonly grantedAt: number;
}

function grantsOf(events: readonly WorkerEvent[]): Grant[] {
  const asked = new Map<string, number>();
  const grants: Grant[] = [];
  for (const e of events) {
    if (e.ev === "acquire" && e.opId) asked.set(e.opId, e.mono);
    if (e.ev === "granted" && e.fence && e.account && e.lockId && e.opId) {
      grants.push({
        account: e.account,
        lockId: e.lockId,
        fence: BigInt(e.fence),
        askedAt: asked.get(e.opId) ?? e.mono,
        grantedAt: e.mono,
      });
    }
  }
  return grants;
}

/**
 * Fences only grow (docs/design.md#fences-only-grow), seen from the clients' side: when a worker
 * asks for an account after another worker's grant of it has arrived, its own grant must carry a
 * larger fence. Only pairs ordered that strictly are compared, so concurrent requests never count.
 * A regression is not a stale write by itself (the guard refuses the smaller fence), but it stalls
 * the account until fences grow past the larger one again.
 */
export function fenceRegressions(events: readonly WorkerEvent[]): FenceRegression[] {
  const found: FenceRegression[] = [];
  const byAccount = new Map<string, Grant[]>();
  for (const grant of grantsOf(events)) {
    const list = byAccount.get(grant.account) ?? [];
    list.push(grant);
    byAccount.set(grant.account, list);
  }
  for (const [account, grants] of byAccount) {
    const byArrival = [...grants].sort((a, b) => a.grantedAt - b.grantedAt);
    const byAsk = [...grants].sort((a, b) => a.askedAt - b.askedAt);
    let highest: Grant | null = null;
    let next = 0;
    for (const later of byAsk) {
      while (next < byArrival.length && byArrival[next]!.grantedAt < later.askedAt) {
        const seen = byArrival[next]!;
        if (!highest || seen.fence > highest.fence) highest = seen;
        next += 1;
      }
      if (highest && highest.lockId !== later.lockId && later.fence <= highest.fence) {
        found.push({
          account,
          mono: later.grantedAt,
          earlier: { lockId: highest.lockId, fence: highest.fence.toString() },
          later: { lockId: later.lockId, fence: later.fence.toString() },
        });
      }
    }
  }
  return found;
}
