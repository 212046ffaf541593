import { fencedUpdate, type Warden } from "@warden/sdk";
import { createPool, type Pool } from "mysql2/promise";
import { benchWarden, type SdkTarget } from "./sdk.js";
import type { Held, Variant } from "./variant.js";

/**
 * What a user of Warden actually runs: the SDK lock plus one write to the protected row
 * guarded by the lock's fence (`fencedUpdate`: one conditional UPDATE) before the release.
 * A guard that does not apply (a stale fence would mean a broken lock) fails the cycle.
 */
export class SdkFencedWriteVariant implements Variant {
  readonly name = "sdk-fenced-write" as const;
  private writes = 0;

  private constructor(
    private readonly warden: Warden,
    private readonly pool: Pool,
    private readonly target: SdkTarget,
  ) {}

  static async open(target: SdkTarget, appDbUrl: string): Promise<SdkFencedWriteVariant> {
    const pool = createPool({ uri: appDbUrl, connectionLimit: 10 });
    const warden = benchWarden(target, `bench-fenced-${process.pid}`);
    try {
      await warden.inspect(target.resource, "warm-up");
      await pool.query("SELECT 1");
    } catch (error) {
      await Promise.allSettled([warden.close(), pool.end()]);
      throw error;
    }
    return new SdkFencedWriteVariant(warden, pool, target);
  }

  async tryAcquire(businessKey: string): Promise<Held | null> {
    const lock = await this.warden.tryAcquire(this.target.resource, businessKey, {
      leaseMs: this.target.leaseMs,
    });
    if (!lock) return null;
    return {
      finish: async () => {
        try {
          this.writes += 1;
          const result = await fencedUpdate(this.pool, lock, {
            table: "bench_fenced",
            where: { id: businessKey },
            set: { payload: this.writes },
          });
          if (result.outcome !== "applied") {
            throw new Error(`fencedUpdate ${result.outcome} at fence ${lock.fence ?? "none"}`);
          }
        } finally {
          await lock.release();
        }
      },
    };
  }

  async close(): Promise<void> {
    await this.warden.close();
    await this.pool.end();
  }
}
