/**
 * Where fencing epochs come from. Implementations must be durable and strictly
 * increasing: an epoch handed out once is never handed out again, even after a crash.
 */
export interface EpochSource {
  /** The highest epoch minted so far (0 before the first mint). */
  current(): Promise<number>;
  /**
   * Mints an epoch greater than every earlier one and returns it once it is durable.
   * Throws when the source is unreachable; callers must then refuse to grant (fail-closed).
   */
  mint(reason: string): Promise<number>;
}
