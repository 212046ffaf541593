import type { EventLog } from "../log/event-log.js";
import type { ObserverEvent } from "../log/events.js";
import type { WardenServer } from "./warden-server.js";

const SCRAPE_EVERY_MS = 500;
const SCRAPE_TIMEOUT_MS = 400;

function metric(text: string, pattern: RegExp): number | undefined {
  const match = pattern.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** One scrape of /metrics: tier, epoch, audit spool, and the server's clock from its Date header. */
async function scrape(
  server: WardenServer,
): Promise<Omit<ObserverEvent, "mono" | "wall" | "src" | "server">> {
  try {
    const res = await fetch(`${server.url}/metrics`, {
      signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS),
    });
    const text = await res.text();
    const date = res.headers.get("date");
    const tier = /warden_tier\{tier="(\w+)"\} 1\b/.exec(text)?.[1];
    return {
      up: res.ok,
      ...(tier ? { tier } : {}),
      ...(date ? { skewMs: Date.parse(date) - Date.now() } : {}),
      epoch: metric(text, /^warden_fence_epoch (\d+)/m) ?? 0,
      spooled: metric(text, /^warden_audit_spooled_total (\d+)/m) ?? 0,
    };
  } catch {
    return { up: false };
  }
}

/**
 * Scrapes every server twice a second into the event log: the tier each one grants on, its
 * fencing epoch, how much audit it had to spool, and its wall clock. The nemesis waits on
 * these, and the checker reads them as evidence.
 */
export class Observer {
  private timer: NodeJS.Timeout | undefined;
  private latest = new Map<string, ObserverEvent>();
  private busy = false;

  constructor(
    private readonly servers: readonly WardenServer[],
    private readonly events: EventLog,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.round(), SCRAPE_EVERY_MS);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The last scrape of `server`. */
  last(server: WardenServer): ObserverEvent | undefined {
    return this.latest.get(server.id);
  }

  /** Whether the last scrape of every server saw it up on `tier`. */
  allOn(tier: string): boolean {
    return this.servers.every((s) => this.last(s)?.up === true && this.last(s)?.tier === tier);
  }

  private async round(): Promise<void> {
    // A scrape of a paused server waits its timeout; never let rounds pile up.
    if (this.busy) return;
    this.busy = true;
    try {
      const results = await Promise.all(this.servers.map((server) => scrape(server)));
      this.servers.forEach((server, i) => {
        const event = this.events.record({
          src: "observer",
          server: server.id,
          ...results[i]!,
        }) as ObserverEvent;
        this.latest.set(server.id, event);
      });
    } finally {
      this.busy = false;
    }
  }
}
