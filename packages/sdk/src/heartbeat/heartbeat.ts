import { hostname } from "node:os";
import type { Tier } from "@warden/contract";
import type { LocalModeTracker } from "../local/local-mode.js";
import { backgroundTimeout } from "../time/timers.js";
import type { Connection } from "../transport/connection.js";
import { SDK_VERSION } from "../version.js";

/** What the heartbeat needs from its client. */
export interface HeartbeatDeps {
  readonly connection: Connection;
  readonly localMode: LocalModeTracker;
  readonly intervalMs: number;
  readonly requestTimeoutMs: number;
  readonly onError: (error: unknown, context: string) => void;
  /** The tier the client uses now: `local` while it holds local locks. */
  readonly tier: () => Tier;
}

/**
 * Tells the server every few seconds that this client lives — clientId (from the
 * connection), host, pid, SDK version, tier in use — and since when it holds local
 * locks; ended local-mode periods ride along until a heartbeat is acknowledged. Sent
 * right after every (re)connect too, so a period from an outage shows up at once.
 */
export class Heartbeat {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private sending = false;
  private readonly host = hostname().slice(0, 255) || "unknown";

  constructor(private readonly deps: HeartbeatDeps) {
    deps.connection.onChange((state) => {
      if (state === "open") void this.beat();
    });
    this.schedule();
  }

  /** Sends one heartbeat now (no-op while disconnected or already sending). */
  async beat(): Promise<void> {
    if (this.stopped || this.sending || this.deps.connection.state !== "open") return;
    this.sending = true;
    const periods = this.deps.localMode.takeEnded();
    try {
      await this.deps.connection.call(
        (api, call) =>
          api.client.heartbeat.mutate(
            {
              host: this.host,
              pid: process.pid,
              sdkVersion: SDK_VERSION,
              tier: this.deps.tier(),
              localSinceMs: this.deps.localMode.localSinceMs,
              ...(periods.length > 0 ? { localPeriods: periods } : {}),
            },
            call,
          ),
        this.deps.requestTimeoutMs,
      );
    } catch (error) {
      this.deps.localMode.unreported(periods);
      this.deps.onError(error, "heartbeat");
    } finally {
      this.sending = false;
    }
  }

  /** Stops for good. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = backgroundTimeout(() => {
      void this.beat().finally(() => this.schedule());
    }, this.deps.intervalMs);
  }
}
