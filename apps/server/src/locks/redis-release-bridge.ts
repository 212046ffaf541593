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

  publish(key: LockKey): void {
    if (this.alone) return;
    const message = JSON.stringify([this.instanceId, key.resource, key.businessKey]);
    const greetings = this.greetings;
    this.publisher.publish(RELEASE_CHANNEL, message).then(
      (receivers) => this.counted(receivers, greetings),
      () => undefined,
    );
  }

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
      onRelease({ resource: parsed[1], businessKey: parsed[2] });
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

function parse(message: string): [string] | [string, string, string] | null {
  try {
    const value: unknown = JSON.parse(message);
    if (
      Array.isArray(value) &&
      (value.length === 3 || value.length === 1) &&
      value.every((v) => typeof v === "string")
    ) {
      return value as [string] | [string, string, string];
    }
  } catch {
    // Not ours: another publisher on the channel.
  }
  return null;
}
