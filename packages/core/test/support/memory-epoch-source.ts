import type { EpochSource } from "../../src/index.js";

/** An in-memory EpochSource for tests of one process; `down` makes mint fail (MySQL outage). */
export class MemoryEpochSource implements EpochSource {
  epoch = 0;
  down = false;
  readonly reasons: string[] = [];

  current(): Promise<number> {
    return this.down ? Promise.reject(new Error("epoch source down")) : Promise.resolve(this.epoch);
  }

  mint(reason: string): Promise<number> {
    if (this.down) return Promise.reject(new Error("epoch source down"));
    this.epoch += 1;
    this.reasons.push(reason);
    return Promise.resolve(this.epoch);
  }
}
