/**
 * Timing defaults shared by every server the testkit starts. Frozen so a test cannot
 * change them for its neighbours; pass options instead.
 */
export const TESTKIT_DEFAULTS = Object.freeze({
  /**
   * Longest wait for a server to answer after spawn. Redis answers in ~50 ms and
   * MariaDB in ~1 s here; 20 s leaves room for a loaded 2-core CI box.
   * @defaultValue 20 000 ms
   */
  startupTimeoutMs: 20_000,
  /**
   * Time a server gets to exit on SIGTERM before it is killed with SIGKILL.
   * @defaultValue 5 000 ms
   */
  stopGraceMs: 5_000,
  /**
   * Connect and command timeout of the short-lived probe connections; a paused
   * (SIGSTOP) server must not stall a probe for longer than this.
   * @defaultValue 1 000 ms
   */
  probeTimeoutMs: 1_000,
  /**
   * Pause between two readiness probes.
   * @defaultValue 50 ms
   */
  pollIntervalMs: 50,
  /**
   * Longest wait for a failover to finish. One takes ~2.5 s with a 1 s down-after
   * period; a split sentinel vote retries after 2 × failover-timeout.
   * @defaultValue 30 000 ms
   */
  failoverWaitMs: 30_000,
});
