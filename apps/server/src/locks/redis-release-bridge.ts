import { Cluster, Redis, type RedisOptions } from "ioredis";
import type { LockKey } from "@warden/contract";
import type { RedisTopology } from "@warden/core";
import type { ReleaseBridge } from "./release-notifier.js";

/** The pub/sub channel release notifications travel on. */
export const RELEASE_CHANNEL = "warden:released";

// The publisher never queues (a notification late is worth less than none); the
// subscriber queues its SUBSCRIBE until connected and ioredis re-subscribes on reconnect.
// Publishes are fire-and-forget, so the publisher auto-pipelines: one write carries the
// notifications of many releases.
const PUBLISHER = {
  maxRetriesPerRequest: 1,
  enableOfflineQueue: false,
  enableAutoPipelining: true,
};
const SUBSCRIBER = { maxRetriesPerRequest: null, enableOfflineQueue: true };

/** A Redis (or Cluster) client for `topology` with `common` options. */
export function connect(topology: RedisTopology, common: RedisOptions): Redis | Cluster {
  switch (topology.mode) {
    case "standalone":
      return new Redis(topology.url, common);
    case "sentinel":
      return new Redis({
        ...common,
        sentinels: topology.sentinels.map((s) => ({ host: s.host, port: s.port })),
        name: topology.masterName,
        ...(topology.password === undefined ? {} : { password: topology.password }),
      });
    case "cluster":
      return new Cluster(
        topology.nodes.map((n) => ({ host: n.host, port: n.port })),
        {
          ...common,
          ...(topology.password === undefined
            ? {}
            : { redisOptions: { password: topology.password } }),
        },
      );
  }
}

// Keys per release message: a turn's releases share one PUBLISH, and a message stays far
// below Redis's limits and a receiver's turn (resource names ≤ 128, business keys ≤ 200).
const MAX_KEYS_PER_MESSAGE = 500;

// After a reconnect, greet once the subscription is back (ioredis restores it on ready).
const GREET_DELAY_MS = 200;
// While alone, how often the channel's subscribers are counted again: catches an instance
// that did not greet (an older version) or a greeting lost with a Redis hiccup.
const PROBE_MS = 1_000;

/**
 * Release notifications between server instances over Redis pub/sub. Best effort: a
 * message lost while Redis is down only delays a waiter until its next re-check (at most
 * the holder's remaining lease, capped; see lock-service.ts), never grants anything.
 *
 * **Alone, nothing is published** (docs/decisions/0045-server-hot-path.md). On standalone
 * and sentinel Redis, `PUBLISH` answers how many connections received the message; while
 * that is only this instance's own subscriber, releases go nowhere useful, so the bridge
 * stops publishing them. It publishes again as soon as another instance greets the channel
 * (every instance does when its subscription starts and after each reconnect), or, at the
 * latest, when the next count of the channel's subscribers (`PUBSUB NUMSUB`, every
 * second while alone) finds another. Redis Cluster counts one node's subscribers only:
 * there every release is published.
 *
 * **Only releases someone may wait for** (docs/decisions/0206): a Redis-tier release of a key
 * nobody was refused since its grant never reaches the bridge (ReleaseNotifier.released).
 *
 * **One message per turn** (docs/decisions/0203): the keys released in one event-loop turn
 * share one `PUBLISH`, so each instance of a fleet reads one message per turn of every
 * other instance, not one per release.
 */
export class RedisReleaseBridge implements ReleaseBridge {
  private readonly publisher: Redis | Cluster;
  private readonly subscriber: Redis | Cluster;
  private readonly countsReceivers: boolean;
  /** True while no other instance listens: releases are not published. */
  private alone = false;
  /** Greetings received; a count answered before the latest greeting is stale. */
  private greetings = 0;
  /** This instance's own subscription is confirmed (it counts as one receiver). */
  private subscribed = false;
  private probeTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Resource, businessKey pairs released in this turn, not yet published. */
  private pending: string[] = [];
  private flushScheduled: NodeJS.Immediate | undefined;

  constructor(
    topology: RedisTopology,
    private readonly instanceId: string,
  ) {
    this.publisher = connect(topology, PUBLISHER);
    this.subscriber = connect(topology, SUBSCRIBER);
    // On a cluster PUBLISH and NUMSUB count the subscribers of one node only.
    this.countsReceivers = topology.mode !== "cluster";
    // Errors are retried by ioredis; without a listener Node would throw them.
    this.publisher.on("error", () => undefined);
    this.subscriber.on("error", () => undefined);
  }

  /** False while releases are not published (no other instance listens). */
  get publishing(): boolean {
    return !this.alone;
  }

  /**
   * Queues the key; the keys released in one event-loop turn leave together in one
   * message, `[instanceId, resource1, businessKey1, resource2, businessKey2, …]`, at most
   * {@link MAX_KEYS_PER_MESSAGE} to a message. A turn with one release sends the same
   * three-element message as before batching, which older instances read.
   */
  publish(key: LockKey): void {
    if (this.alone) return;
    this.pending.push(key.resource, key.businessKey);
    this.flushScheduled ??= setImmediate(this.flushPending);
  }

  /** Sends the keys queued in this turn (bound once: no closure per turn). */
  private readonly flushPending = (): void => {
    this.flushScheduled = undefined;
    const pending = this.pending;
    this.pending = [];
    if (this.closed || this.alone) return;
    const greetings = this.greetings;
    for (let start = 0; start < pending.length; start += 2 * MAX_KEYS_PER_MESSAGE) {
      const keys = pending.slice(start, start + 2 * MAX_KEYS_PER_MESSAGE);
      const message = JSON.stringify([this.instanceId, ...keys]);
      this.publisher.publish(RELEASE_CHANNEL, message).then(
        (receivers) => this.counted(receivers, greetings),
        () => undefined,
      );
    }
  };

  subscribe(onRelease: (key: LockKey) => void): void {
    this.subscriber.on("message", (channel: string, message: string) => {
      if (channel !== RELEASE_CHANNEL) return;
      const parsed = parse(message);
      if (!parsed || parsed[0] === this.instanceId) return;
      if (parsed.length === 1) {
        // Another instance listens now: publish again, from this release on.
        this.greetings += 1;
        this.alone = false;
        return;
      }
      for (let index = 1; index < parsed.length; index += 2)
        onRelease({ resource: parsed[index]!, businessKey: parsed[index + 1]! });
    });
    this.subscriber
      .subscribe(RELEASE_CHANNEL)
      .then(() => {
        this.subscribed = true;
        this.greet();
      })
      .catch(() => undefined);
    this.subscriber.on("ready", () => {
      if (!this.subscribed || this.closed) return;
      setTimeout(() => this.greet(), GREET_DELAY_MS).unref();
    });
    if (this.countsReceivers) {
      this.probeTimer = setInterval(() => void this.probe(), PROBE_MS);
      this.probeTimer.unref();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.probeTimer) clearInterval(this.probeTimer);
    if (this.flushScheduled) clearImmediate(this.flushScheduled);
    this.flushScheduled = undefined;
    this.pending = [];
    this.publisher.disconnect();
    this.subscriber.disconnect();
  }

  /** Tells the other instances this one listens (they publish to it from now on). */
  private greet(): void {
    if (this.closed) return;
    this.publisher
      .publish(RELEASE_CHANNEL, JSON.stringify([this.instanceId]))
      .catch(() => undefined);
  }

  /** While alone, counts the channel's subscribers: another one means publish again. */
  private async probe(): Promise<void> {
    if (!this.alone || this.closed) return;
    const greetings = this.greetings;
    try {
      const reply = await this.publisher.pubsub("NUMSUB", RELEASE_CHANNEL);
      this.counted(Number(reply[1] ?? 0), greetings);
    } catch {
      // Redis unreachable: the next probe tries again.
    }
  }

  /**
   * `receivers` connections listen on the channel; alone when they are at most this
   * instance's own subscriber. Not concluded before that subscription is confirmed (a
   * single receiver would then be another instance), nor from a count made before the
   * latest greeting.
   */
  private counted(receivers: number, greetings: number): void {
    if (!this.countsReceivers || !this.subscribed || greetings !== this.greetings) return;
    // Reconnecting: this instance's subscriber is not among the receivers right now.
    if (this.subscriber.status !== "ready") return;
    this.alone = receivers <= 1;
  }
}

/** A greeting `[instanceId]`, or `[instanceId, resource, businessKey, …]` (one pair or more). */
function parse(message: string): string[] | null {
  try {
    const value: unknown = JSON.parse(message);
    if (
      Array.isArray(value) &&
      value.length % 2 === 1 &&
      value.every((v) => typeof v === "string")
    ) {
      return value;
    }
  } catch {
    // Not ours: another publisher on the channel.
  }
  return null;
}
