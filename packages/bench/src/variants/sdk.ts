import { createWarden, type Warden } from "@warden/sdk";
import type { Held, Variant } from "./variant.js";

/** Where an SDK variant connects and what it locks. */
export interface SdkTarget {
  readonly serverUrl: string;
  readonly apiKey: string;
  readonly resource: string;
  readonly leaseMs: number;
}

/**
 * A Warden client of the bench. Errors of background work (a release retried in the
 * background, a heartbeat) go to the log, one line each; those of a client being closed
 * are expected and left out.
 */
export function benchWarden(target: SdkTarget, clientId: string): Warden {
  return createWarden({
    url: target.serverUrl,
    apiKey: target.apiKey,
    clientId,
    onError: (error, context) => {
      const name = error instanceof Error ? error.name : "Error";
      if (name === "ClientClosedError") return;
      const message = error instanceof Error ? error.message : String(error);
      console.error(`[${clientId}] ${context}: ${name}: ${message}`);
    },
  });
}

/**
 * The product path: `warden.tryAcquire` → server → tier → `lock.release()`, one SDK client
 * (one WebSocket) shared by every cycle in flight, as a service would use it. `sdk-mysql`
 * is the same with the server's tier pinned to `mysql`.
 */
export class SdkVariant implements Variant {
  private constructor(
    readonly name: "sdk" | "sdk-mysql",
    private readonly warden: Warden,
    private readonly target: SdkTarget,
  ) {}

  static async open(name: "sdk" | "sdk-mysql", target: SdkTarget): Promise<SdkVariant> {
    const warden = benchWarden(target, `bench-${name}-${process.pid}`);
    // Connect and fetch the resource policy before the clock starts.
    await warden.inspect(target.resource, "warm-up");
    return new SdkVariant(name, warden, target);
  }

  async tryAcquire(businessKey: string): Promise<Held | null> {
    const lock = await this.warden.tryAcquire(this.target.resource, businessKey, {
      leaseMs: this.target.leaseMs,
    });
    return lock && { finish: () => lock.release() };
  }

  async close(): Promise<void> {
    await this.warden.close();
  }
}
