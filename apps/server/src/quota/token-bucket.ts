/**
 * A token bucket: `ratePerSecond` tokens a second, at most `burst` saved up. `take()`
 * answers 0 when a token was taken, or how many ms until one will be there.
 */
export class TokenBucket {
  private tokens: number;
  private updatedMs: number;

  constructor(
    private ratePerSecond: number,
    private burst: number,
    nowMs: number,
  ) {
    this.tokens = burst;
    this.updatedMs = nowMs;
  }

  /** Changes the rate (a tenant's quota was edited) without refilling. */
  reconfigure(ratePerSecond: number, burst: number): void {
    this.ratePerSecond = ratePerSecond;
    this.burst = burst;
    this.tokens = Math.min(this.tokens, burst);
  }

  /** Whether a token is there, without taking it: 0, else the wait in ms until one is due. */
  peek(nowMs: number): number {
    const elapsedMs = Math.max(0, nowMs - this.updatedMs);
    const tokens = Math.min(this.burst, this.tokens + (elapsedMs * this.ratePerSecond) / 1000);
    return tokens >= 1 ? 0 : Math.ceil(((1 - tokens) * 1000) / this.ratePerSecond);
  }

  /** Takes one token; returns 0 on success, else the wait in ms until a token is due. */
  take(nowMs: number): number {
    const elapsedMs = Math.max(0, nowMs - this.updatedMs);
    this.tokens = Math.min(this.burst, this.tokens + (elapsedMs * this.ratePerSecond) / 1000);
    this.updatedMs = nowMs;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.tokens) * 1000) / this.ratePerSecond);
  }
}
