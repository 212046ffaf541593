import { setMaxListeners } from "node:events";
import { performance } from "node:perf_hooks";
import { createWarden, LockTimeoutError, type Warden } from "@warden/sdk";

/** A running demo workload. */
export interface Workload {
  stop(): Promise<void>;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });

const between = (low: number, high: number) => low + Math.floor(Math.random() * (high - low));

/**
 * Three SDK clients doing what services do, at a gentle rate so the console has live data:
 * contended fair waits on orders, quick try-locks on stock, and a nightly report that
 * sometimes runs long enough to raise a long-hold alert.
 */
export function startWorkload(apiUrl: string, apiKey: string): Workload {
  const stop = new AbortController();
  // Every loop and every lock it takes listens to this one signal: more than Node's default 10.
  setMaxListeners(64, stop.signal);
  const clients: Warden[] = ["checkout-1", "checkout-2", "reporting"].map((clientId) =>
    createWarden({ url: apiUrl, apiKey, clientId, onError: () => undefined }),
  );
  const [checkoutA, checkoutB, reporting] = clients as [Warden, Warden, Warden];
  const report = rateLimitedLog();
  const loops = [
    ...[checkoutA, checkoutB].flatMap((client, c) =>
      Array.from({ length: 3 }, (_, i) =>
        settleOrders(client, `task-${c}-${i}`, stop.signal, report),
      ),
    ),
    ...[checkoutA, checkoutB].map((client) => reserveStock(client, stop.signal, report)),
    nightlyReport(reporting, stop.signal, report),
  ];
  return {
    async stop() {
      stop.abort();
      await Promise.allSettled(loops);
      await Promise.allSettled(clients.map((client) => client.close()));
    },
  };
}

async function settleOrders(
  client: Warden,
  ownerId: string,
  signal: AbortSignal,
  report: (e: unknown) => void,
) {
  while (!signal.aborted) {
    const order = `order-${between(1000, 1012)}`;
    try {
      await client.withLock("order.settle", order, (lock) => sleep(between(50, 400), lock.signal), {
        waitMs: 3_000,
        ownerId,
        signal,
      });
    } catch (error) {
      if (!(error instanceof LockTimeoutError) && !signal.aborted) report(error);
    }
    await sleep(between(100, 600), signal);
  }
}

async function reserveStock(client: Warden, signal: AbortSignal, report: (e: unknown) => void) {
  while (!signal.aborted) {
    try {
      const lock = await client.tryAcquire("inventory.reserve", `sku-${between(1, 60)}`);
      if (lock) {
        await sleep(between(20, 120), signal);
        await lock.release();
      }
    } catch (error) {
      if (!signal.aborted) report(error);
    }
    await sleep(between(30, 150), signal);
  }
}

async function nightlyReport(client: Warden, signal: AbortSignal, report: (e: unknown) => void) {
  while (!signal.aborted) {
    try {
      const lock = await client.tryAcquire("report.nightly", "daily-revenue", { leaseMs: 10_000 });
      if (lock) {
        // Every few runs the report overruns its expected second by far: a long-hold alert.
        await sleep(Math.random() < 0.3 ? between(3_500, 6_000) : between(600, 1_200), signal);
        await lock.release();
      }
    } catch (error) {
      if (!signal.aborted) report(error);
    }
    await sleep(between(5_000, 10_000), signal);
  }
}

/** Logs workload errors at most once every 5 s, so a Redis outage does not flood the terminal. */
function rateLimitedLog(): (error: unknown) => void {
  let lastMs = -Infinity;
  let suppressed = 0;
  return (error) => {
    const now = performance.now();
    if (now - lastMs < 5_000) {
      suppressed += 1;
      return;
    }
    lastMs = now;
    const more = suppressed > 0 ? ` (+${suppressed} more)` : "";
    suppressed = 0;
    console.log(
      `[demo] workload: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}${more}`,
    );
  };
}
