import type { Warden } from "@warden/sdk";
import { benchWarden, type SdkTarget } from "./sdk.js";
import type { Held, Variant } from "./variant.js";

/**
 * The read-write lock's read path: `warden.rwLock(resource, key).tryRead()` → server → the
 * store's read-write script → `lease.release()`, one SDK client shared by every cycle in
 * flight, as `sdk` does for the mutex. Readers never exclude each other, so every try is
 * granted; over 10 000 keys the mutex's are too, and `sdk-read-lock / sdk` is the cost of
 * the read path (docs/decisions/0046).
 */
export class SdkReadLockVariant implements Variant {
  readonly name = "sdk-read-lock" as const;

  private constructor(
    private readonly warden: Warden,
    private readonly target: SdkTarget,
  ) {}

  static async open(target: SdkTarget): Promise<SdkReadLockVariant> {
    const warden = benchWarden(target, `bench-sdk-read-lock-${process.pid}`);
    try {
      // Connect and check the resource is a read-write lock before the clock starts.
      await warden.rwLock(target.resource, "warm-up").inspect();
    } catch (error) {
      await warden.close();
      throw error;
    }
    return new SdkReadLockVariant(warden, target);
  }

  async tryAcquire(businessKey: string): Promise<Held | null> {
    const lease = await this.warden
      .rwLock(this.target.resource, businessKey)
      .tryRead({ leaseMs: this.target.leaseMs });
    return lease && { finish: () => lease.release() };
  }

  async close(): Promise<void> {
    await this.warden.close();
  }
}
