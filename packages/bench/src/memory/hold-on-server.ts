import { setMaxListeners } from "node:events";
import { performance } from "node:perf_hooks";
import { createTRPCClient, createWSClient, wsLink } from "@trpc/client";
import type { Warden } from "@warden/sdk";
import type { AppRouter } from "@warden/server";
import WebSocket from "ws";
import type { HoldReport } from "../load/loadgen-config.js";
import { benchWarden, type SdkTarget } from "../variants/sdk.js";

/** Acquire calls in flight while taking the locks. */
const HOLD_CONCURRENCY = 64;
/** How long waiters wait at most, in ms: longer than the measurement. */
const WAITER_WAIT_MS = 120_000;
const POLL_MS = 250;
/**
 * Shares of the lease, from the first grant, by which taking locks stops and by which the
 * waiters must be queued: the RSS must be read before the first lock lapses.
 */
const ACQUIRE_BUDGET_SHARE = 0.5;
const QUEUE_BUDGET_SHARE = 0.8;

/** `h:000000` …: one key per held lock. */
function holdKey(index: number): string {
  return `h:${String(index).padStart(6, "0")}`;
}

/**
 * Puts the server in the state whose RSS the bench reports: `locks` live locks and
 * `waiters` blocking acquires queued behind some of them, spread over `waiterClients`
 * SDK clients (one WebSocket each). The locks are taken over a raw tRPC WebSocket, not
 * the SDK: an SDK would renew 100 000 leases (a third of the lease apart), and the point
 * is the server's memory, not a renewal storm. Leases are capped at 60 s, so taking
 * stops after half the lease even if fewer than `locks` were
 * granted by then — a slower server holds fewer live locks, and the report says how many.
 * Waiters queue on the newest locks, which lapse last. Nothing is released: the bench
 * stops the server (and this process) right after reading the RSS.
 */
export class ServerHold {
  private readonly clients: Warden[] = [];
  private readonly cancel = new AbortController();
  private grantedAtMs: number[] = [];
  private closeSocket: (() => void) | null = null;

  constructor(private readonly target: SdkTarget) {}

  /** Takes up to `locks` locks, queues `waiters` on `waiterClients` clients, and reports. */
  async take(locks: number, waiters: number, waiterClients: number): Promise<HoldReport> {
    const ws = createWSClient({
      url: `${this.target.serverUrl.replace(/^http/, "ws")}/trpc`,
      connectionParams: { apiKey: this.target.apiKey, clientId: `bench-hold-${process.pid}` },
      WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
    });
    this.closeSocket = () => void ws.close();
    const api = createTRPCClient<AppRouter>({ links: [wsLink({ client: ws })] });
    const started = performance.now();
    const stopAt = started + this.target.leaseMs * ACQUIRE_BUDGET_SHARE;
    let next = 0;
    const grantedAtMs: number[] = [];
    await Promise.all(
      Array.from({ length: Math.min(HOLD_CONCURRENCY, locks) }, async () => {
        for (let index = next++; index < locks && performance.now() < stopAt; index = next++) {
          const grant = await api.lock.acquire.mutate({
            resource: this.target.resource,
            businessKey: holdKey(index),
            ownerId: "hold",
            leaseMs: this.target.leaseMs,
          });
          if (!grant.granted) throw new Error(`hold: ${holdKey(index)} was refused`);
          grantedAtMs.push(performance.now());
        }
      }),
    );
    this.grantedAtMs = grantedAtMs;
    const acquireMs = performance.now() - started;
    const queueBy = started + this.target.leaseMs * QUEUE_BUDGET_SHARE;
    await this.queueWaiters(grantedAtMs.length, waiters, waiterClients, queueBy);
    return {
      requested: locks,
      granted: grantedAtMs.length,
      locks: this.live(),
      waiters: await this.queued(),
      acquireMs,
    };
  }

  /** Stops the waiters' clients and the holder's socket (the locks lapse with their lease). */
  async close(): Promise<void> {
    this.cancel.abort(new Error("bench memory hold ended"));
    await Promise.allSettled(this.clients.map((client) => client.close()));
    this.closeSocket?.();
  }

  /** Queues `waiters` blocking acquires on the newest of the `held` locks. */
  private async queueWaiters(
    held: number,
    waiters: number,
    waiterClients: number,
    deadline: number,
  ) {
    // Every waiter listens on the one cancel signal: that many listeners is intended.
    setMaxListeners(waiters * 4 + 10, this.cancel.signal);
    for (let i = 0; i < waiterClients; i += 1) {
      this.clients.push(benchWarden(this.target, `bench-waiter-${process.pid}-${i}`));
    }
    for (let i = 0; i < waiters; i += 1) {
      const client = this.clients[i % waiterClients]!;
      client
        .acquire(this.target.resource, holdKey(held - 1 - (i % held)), {
          waitMs: WAITER_WAIT_MS,
          signal: this.cancel.signal,
        })
        // Ends when the hold is closed (aborted) or a lease lapses (granted): either is fine.
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

  /** Locks whose lease has certainly not lapsed yet (granted less than a lease ago). */
  private live(): number {
    const now = performance.now();
    return this.grantedAtMs.filter((at) => now - at < this.target.leaseMs).length;
  }
}
