import type { Server } from "node:http";
import type { Cluster, Redis } from "ioredis";
import type { Logger } from "pino";
import type { RedisTopology } from "@warden/core";
import { connect } from "../locks/redis-release-bridge.js";
import { ConnectionCounter } from "./connection-counter.js";
import {
  fleetViewOf,
  parseAnnouncement,
  type InstanceAnnouncement,
  type InstanceView,
  type SeenAnnouncement,
  type TierView,
} from "./instance-entry.js";

/** Who this instance is, for its announcements. */
export interface InstanceIdentity {
  /** Per process (see {@link InstanceAnnouncement.id}). */
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly host: string;
  readonly pid: number;
  readonly startedAt: number;
}

/** Options of {@link InstanceRegistry}. */
export interface InstanceRegistryOptions {
  readonly identity: InstanceIdentity;
  /** The Redis every instance announces itself in; null: this instance only. */
  readonly redis: RedisTopology | null;
  readonly tier: () => TierView;
  readonly logger: Logger;
  /** How often it announces itself, ms. @defaultValue 2 000 */
  readonly everyMs?: number;
  /** How long an announcement lives without the next one, ms. @defaultValue 10 000 */
  readonly ttlMs?: number;
}

/** `instance.list`'s answer. */
export interface FleetAnswer {
  /** The answering instance's clock, ms: ages and uptimes are relative to it. */
  readonly now: number;
  /** The answering instance's id. */
  readonly selfId: string;
  /**
   * Where the list comes from: `redis` (every instance announcing itself there) or `self`
   * (Redis not configured or not answering: this instance alone, the others unknown).
   */
  readonly source: "redis" | "self";
  /** Why the list is this instance only; null when it is the fleet. */
  readonly degradedReason: string | null;
  /** Entries older than this missed beats and are shown stale, ms. */
  readonly staleAfterMs: number;
  readonly ttlMs: number;
  readonly instances: InstanceView[];
}

// Every key shares the hash tag {inst}: one cluster slot, so a beat is one transaction.
const SET_KEY = "w:{inst}:ids";
const entryKey = (id: string) => `w:{inst}:i:${id}`;

// A beat must answer fast or not at all: it is tried again at the next beat.
const CLIENT = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  commandTimeout: 1_000,
  connectTimeout: 2_000,
};

/**
 * The fleet's members, in Redis (docs/decisions/0135): every `everyMs` each instance writes
 * its announcement under its own key with a TTL of `ttlMs` and adds its id to one set; a
 * list reads the set and every entry with its remaining TTL. An instance that dies stops
 * announcing and its key expires (its id is dropped from the set by the next list); a
 * clean shutdown deletes both at once. While Redis does not answer, the list is this
 * instance alone, and says so.
 */
export class InstanceRegistry {
  private readonly client: Redis | Cluster | null;
  private readonly everyMs: number;
  private readonly ttlMs: number;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private beating: Promise<void> | null = null;
  private lastSize = 1;
  private readonly connections = new ConnectionCounter();
  private unwatch: (() => void) | null = null;

  constructor(private readonly options: InstanceRegistryOptions) {
    this.everyMs = options.everyMs ?? 2_000;
    this.ttlMs = options.ttlMs ?? 10_000;
    this.client = options.redis ? connect(options.redis, CLIENT) : null;
    // Reconnects are ioredis's; failures surface as rejected commands.
    this.client?.on("error", () => undefined);
  }

  /** This instance's id. */
  get id(): string {
    return this.options.identity.id;
  }

  /** Beats after which an entry counts as stale: two and a half missed. */
  get staleAfterMs(): number {
    return Math.round(this.everyMs * 2.5);
  }

  /** Fleet size at the last beat (this instance alone while Redis does not answer). */
  get fleetSize(): number {
    return this.lastSize;
  }

  /**
   * Counts the connections open on the instance's HTTP server from now on;
   * `subscriptionPaths` are its procedures served as streams (see `subscriptionPathsOf`).
   */
  watchConnections(server: Server, subscriptionPaths: ReadonlySet<string>): void {
    this.unwatch?.();
    this.unwatch = this.connections.watch(server, subscriptionPaths);
  }

  /** Announces now and every `everyMs` until {@link close}. */
  start(): void {
    if (this.timer || this.closed) return;
    // Commands are not queued while the connection is down: announce as soon as it is up
    // (at start and after every reconnect), not only at the next beat.
    this.client?.on("ready", () => this.beat());
    this.beat();
    this.timer = setInterval(() => this.beat(), this.everyMs);
    this.timer.unref();
  }

  /** This instance's announcement now. */
  announcement(): InstanceAnnouncement {
    const { identity } = this.options;
    return {
      ...identity,
      uptimeMs: Math.max(0, Date.now() - identity.startedAt),
      connections: this.connections.counts(),
      tier: this.options.tier(),
      ttlMs: this.ttlMs,
    };
  }

  private beat(): void {
    if (this.beating || this.closed || !this.client) return;
    this.beating = this.announce()
      .then(() => this.list())
      .then((answer) => {
        this.lastSize = answer.instances.length;
      })
      .catch((error: unknown) => {
        this.lastSize = 1;
        this.options.logger.debug({ err: error }, "instance announcement failed");
      })
      .finally(() => {
        this.beating = null;
      });
  }

  private async announce(): Promise<void> {
    const client = this.client;
    if (!client) return;
    const own = this.announcement();
    await client
      .multi()
      .set(entryKey(own.id), JSON.stringify(own), "PX", this.ttlMs)
      .sadd(SET_KEY, own.id)
      .exec();
  }

  /** The fleet as this instance sees it now (own entry always fresh). */
  async list(): Promise<FleetAnswer> {
    const now = Date.now();
    const own = this.announcement();
    const base = {
      now,
      selfId: own.id,
      staleAfterMs: this.staleAfterMs,
      ttlMs: this.ttlMs,
    };
    const alone = (degradedReason: string): FleetAnswer => ({
      ...base,
      source: "self",
      degradedReason,
      instances: fleetViewOf([{ announcement: own, ageMs: 0 }], own.id, now, this.staleAfterMs),
    });
    const client = this.client;
    if (!client) return alone("no shared Redis is configured: this instance only");
    if (this.closed) return alone("this instance is shutting down");
    let seen: SeenAnnouncement[];
    try {
      seen = await this.readAll(client, own.id);
    } catch (error) {
      return alone(
        `Redis did not answer (${(error as Error).message}): this instance only; the others are unknown until it does`,
      );
    }
    seen.push({ announcement: own, ageMs: 0 });
    return {
      ...base,
      source: "redis",
      degradedReason: null,
      instances: fleetViewOf(seen, own.id, now, this.staleAfterMs),
    };
  }

  private async readAll(client: Redis | Cluster, ownId: string): Promise<SeenAnnouncement[]> {
    const ids = (await client.smembers(SET_KEY)).filter((id) => id !== ownId).sort();
    if (ids.length === 0) return [];
    const pipeline = client.pipeline();
    for (const id of ids) pipeline.get(entryKey(id)).pttl(entryKey(id));
    const replies = (await pipeline.exec()) ?? [];
    const seen: SeenAnnouncement[] = [];
    const gone: string[] = [];
    ids.forEach((id, i) => {
      const [getError, text] = replies[2 * i] ?? [null, null];
      const [ttlError, pttl] = replies[2 * i + 1] ?? [null, null];
      const failed = getError ?? ttlError;
      if (failed) throw failed;
      const announcement = typeof text === "string" ? parseAnnouncement(text) : null;
      if (text === null) gone.push(id);
      if (announcement === null || typeof pttl !== "number" || pttl < 0) return;
      seen.push({ announcement, ageMs: Math.max(0, announcement.ttlMs - pttl) });
    });
    // Expired entries (an instance that died): the set forgets them too.
    if (gone.length > 0) await client.srem(SET_KEY, ...gone).catch(() => undefined);
    return seen;
  }

  /** Stops announcing and removes this instance's entry at once (best effort). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unwatch?.();
    this.unwatch = null;
    await this.beating;
    const client = this.client;
    if (!client) return;
    const id = this.options.identity.id;
    await client
      .multi()
      .del(entryKey(id))
      .srem(SET_KEY, id)
      .exec()
      .catch((error: unknown) =>
        this.options.logger.warn(
          { err: error },
          "could not remove this instance from the registry; it expires on its own",
        ),
      );
    await client.quit().catch(() => client.disconnect());
  }
}
