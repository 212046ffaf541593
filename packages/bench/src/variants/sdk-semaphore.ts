import type { Warden } from "@warden/sdk";
import { benchWarden, type SdkTarget } from "./sdk.js";
import type { Held, Variant } from "./variant.js";

/**
 * The semaphore product path: `warden.semaphore(resource, key).tryAcquire()` → server →
 * the store's semaphore script → `permit.release()`, one SDK client shared by every cycle
 * in flight, as `sdk` does for the mutex. The resource has 1 permit per key, so a key is
 * as contended as the mutex's and `sdk-semaphore / sdk` is the cost of the kind alone
 * (docs/decisions/0046). `sdk-semaphore-fair` is the same on a fair resource (every try
 * respects the key's queue), as `sdk-fair` is for the mutex.
 */
export class SdkSemaphoreVariant implements Variant {
  private constructor(
    readonly name: "sdk-semaphore" | "sdk-semaphore-fair",
    private readonly warden: Warden,
    private readonly target: SdkTarget,
  ) {}

  static async open(
    name: "sdk-semaphore" | "sdk-semaphore-fair",
    target: SdkTarget,
  ): Promise<SdkSemaphoreVariant> {
    const warden = benchWarden(target, `bench-${name}-${process.pid}`);
    try {
      // Connect and check the resource is a semaphore before the clock starts.
      await warden.semaphore(target.resource, "warm-up").inspect();
    } catch (error) {
      await warden.close();
      throw error;
    }
    return new SdkSemaphoreVariant(name, warden, target);
  }

  async tryAcquire(businessKey: string): Promise<Held | null> {
    const permit = await this.warden
      .semaphore(this.target.resource, businessKey)
      .tryAcquire({ leaseMs: this.target.leaseMs });
    return permit && { finish: () => permit.release() };
  }

  async close(): Promise<void> {
    await this.warden.close();
  }
}
