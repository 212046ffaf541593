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

/** SDK variants: one client on one instance, or several clients spread over instances. */
export type SdkVariantName = "sdk" | "sdk-fair" | "sdk-mysql" | "sdk-3clients" | "sdk-3instances";

/**
 * The server each of `clients` SDK clients connects to: round-robin over `serverUrls`, so
 * client i talks to instance i mod N (the SDK takes one URL per client).
 */
export function clientUrls(serverUrls: readonly string[], clients: number): string[] {
  if (serverUrls.length === 0) throw new Error("no server instance to connect to");
  return Array.from({ length: clients }, (_, i) => serverUrls[i % serverUrls.length]!);
}

/**
 * The product path: `warden.tryAcquire` → server → tier → `lock.release()`, as a service
 * would use it. `sdk` is one SDK client (one WebSocket) shared by every cycle in flight;
 * `sdk-mysql` is the same with the server's tier pinned to `mysql`; `sdk-fair` locks a
 * `fair` resource. With several clients (`sdk-3clients` on one instance, `sdk-3instances`
 * one per instance of a fleet), consecutive cycles go to the clients in turn.
 */
export class SdkVariant implements Variant {
  private next = 0;

  private constructor(
    readonly name: SdkVariantName,
    private readonly wardens: readonly Warden[],
    private readonly target: SdkTarget,
  ) {}

  /**
   * Opens one client per entry of `urls` (default: one on `target.serverUrl`).
   */
  static async open(
    name: SdkVariantName,
    target: SdkTarget,
    urls: readonly string[] = [target.serverUrl],
  ): Promise<SdkVariant> {
    const wardens = urls.map((url, i) =>
      benchWarden({ ...target, serverUrl: url }, `bench-${name}-${process.pid}-${i}`),
    );
    try {
      // Connect and fetch the resource policy before the clock starts.
      await Promise.all(wardens.map((warden) => warden.inspect(target.resource, "warm-up")));
    } catch (error) {
      await Promise.allSettled(wardens.map((warden) => warden.close()));
      throw error;
    }
    return new SdkVariant(name, wardens, target);
  }

  async tryAcquire(businessKey: string): Promise<Held | null> {
    const warden = this.wardens[this.next]!;
    this.next = (this.next + 1) % this.wardens.length;
    const lock = await warden.tryAcquire(this.target.resource, businessKey, {
      leaseMs: this.target.leaseMs,
    });
    return lock && { finish: () => lock.release() };
  }

  async close(): Promise<void> {
    await Promise.all(this.wardens.map((warden) => warden.close()));
  }
}
