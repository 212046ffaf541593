import { setMaxListeners } from "node:events";
import { performance } from "node:perf_hooks";
import type { Lock, Warden } from "@warden/sdk";
import type { HoldReport, RenewalReport } from "../load/loadgen-config.js";
import { benchWarden, type SdkTarget } from "../variants/sdk.js";

/** Acquire calls in flight while taking the locks. */
const HOLD_CONCURRENCY = 64;
/** How long waiters wait at most, in ms: longer than the measurement. */
const WAITER_WAIT_MS = 180_000;
const POLL_MS = 250;
/** Longest time spent taking locks, in ms (a slow server holds fewer, and the report says so). */
const ACQUIRE_BUDGET_MS = 45_000;
/** Longest time spent queueing the waiters, in ms. */
const QUEUE_BUDGET_MS = 15_000;
/** Renewals are counted over one renewal period (a third of the lease) plus this, in ms. */
const RENEWAL_WINDOW_EXTRA_MS = 2_000;

/** `h:000000` …: one key per held lock. */
function holdKey(index: number): string {
  return `h:${String(index).padStart(6, "0")}`;
}

/**
 * Puts the server in the state whose RSS the bench reports: `locks` live locks held by
 * `clients` SDK clients (one WebSocket each, the locks spread evenly), and `waiters`
 * blocking acquires queued behind some of them from the same clients. The SDK renews
 * every lease (a third of the lease apart), in bulk; after the RSS is read,
 * `countRenewals` counts the renewal commands the clients send over one renewal period —
 * issue 13 asks for renewal traffic that grows with clients, not locks (at most 2 calls/s
 * per client). Waiters queue on the newest locks. Nothing is released before `close()`.
 */
export class ServerHold {
  private readonly clients: Warden[] = [];
  private readonly held: Lock[] = [];
  private readonly cancel = new AbortController();

  constructor(private readonly target: SdkTarget) {}

  /** Takes up to `locks` locks and queues `waiters` on `clients` clients. */
  async take(locks: number, waiters: number, clients: number): Promise<HoldReport> {
    for (let i = 0; i < clients; i += 1) {
      this.clients.push(benchWarden(this.target, `bench-hold-${process.pid}-${i}`));
    }
    const started = performance.now();
    const stopAt = started + ACQUIRE_BUDGET_MS;
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(HOLD_CONCURRENCY, locks) }, async () => {
        for (let index = next++; index < locks && performance.now() < stopAt; index = next++) {
          const client = this.clients[index % clients]!;
          const lock = await client.tryAcquire(this.target.resource, holdKey(index), {
            leaseMs: this.target.leaseMs,
          });
          if (!lock) throw new Error(`hold: ${holdKey(index)} was refused`);
          this.held.push(lock);
        }
      }),
    );
    const acquireMs = performance.now() - started;
    const granted = this.held.length;
    await this.queueWaiters(granted, waiters, performance.now() + QUEUE_BUDGET_MS);
    return {
      requested: locks,
      granted,
      locks: this.held.filter((lock) => lock.held).length,
      waiters: await this.queued(),
      acquireMs,
      clients,
    };
  }

  /** Stops the clients: their locks are released, their waits withdrawn. */
  async close(): Promise<void> {
    this.cancel.abort(new Error("bench memory hold ended"));
    await Promise.allSettled(this.clients.map((client) => client.close()));
  }

  /**
   * Bulk renewal commands and renewed leases the clients send over one renewal period (a
   * third of the lease) and a little more: every held lock is renewed about once in it.
   */
  async countRenewals(): Promise<RenewalReport> {
    const windowMs = this.target.leaseMs / 3 + RENEWAL_WINDOW_EXTRA_MS;
    const total = () =>
      this.clients.reduce(
        (sum, client) => {
          const { commands, leases } = client.stats().renewals;
          return { commands: sum.commands + commands, leases: sum.leases + leases };
        },
        { commands: 0, leases: 0 },
      );
    const before = total();
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const after = total();
    return {
      windowMs: performance.now() - started,
      commands: after.commands - before.commands,
      leases: after.leases - before.leases,
    };
  }

  /** Queues `waiters` blocking acquires on the newest of the `held` locks. */
  private async queueWaiters(held: number, waiters: number, deadline: number) {
    if (held === 0) return;
    // Every waiter listens on the one cancel signal: that many listeners is intended.
    setMaxListeners(waiters * 4 + 10, this.cancel.signal);
    for (let i = 0; i < waiters; i += 1) {
      // A client other than the holder's (the holder's own owner would re-enter).
      const index = held - 1 - (i % held);
      const client = this.clients[(index + 1) % this.clients.length]!;
      client
        .acquire(this.target.resource, holdKey(index), {
          waitMs: WAITER_WAIT_MS,
          signal: this.cancel.signal,
        })
        // Ends when the hold is closed (aborted): fine.
        .catch(() => undefined);
    }
    for (let queued = await this.queued(); queued < waiters; queued = await this.queued()) {
      if (performance.now() >= deadline) break;
      console.error(`hold: ${queued} of ${waiters} waiters queued`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  private async queued(): Promise<number> {
    const client = this.clients[0];
    return client ? (await client.waiters(this.target.resource)).length : 0;
  }
}
