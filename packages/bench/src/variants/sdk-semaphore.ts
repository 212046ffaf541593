import type { Warden } from "@warden/sdk";
import { benchWarden, type SdkTarget } from "./sdk.js";
import type { Held, Variant } from "./variant.js";

/**
 * The semaphore product path: `warden.semaphore(resource, key).tryAcquire()` → server →
 * the store's semaphore script → `permit.release()`, one SDK client shared by every cycle
 * in flight, as `sdk` does for the mutex. The resource has 1 permit per key, so a key is
 * as contended as the mutex's and `sdk-semaphore / sdk` is the cost of the kind alone
 * (docs/decisions/0046).
 */
export class SdkSemaphoreVariant implements Variant {
  readonly name = "sdk-semaphore" as const;

  private constructor(
    private readonly warden: Warden,
    private readonly target: SdkTarget,
  ) {}

  static async open(target: SdkTarget): Promise<SdkSemaphoreVariant> {
    const warden = benchWarden(target, `bench-sdk-semaphore-${process.pid}`);
    try {
      // Connect and check the resource is a semaphore before the clock starts.
      await warden.semaphore(target.resource, "warm-up").inspect();
    } catch (error) {
      await warden.close();
      throw error;
    }
    return new SdkSemaphoreVariant(warden, target);
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
