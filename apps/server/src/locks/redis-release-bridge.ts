import { Cluster, Redis, type RedisOptions } from "ioredis";
import type { LockKey, RedisTopology } from "@warden/core";
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

function connect(topology: RedisTopology, common: RedisOptions): Redis | Cluster {
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

/**
 * Release notifications between server instances over Redis pub/sub. Best effort: a
 * message lost while Redis is down only delays a waiter until its next re-check (at most
 * the holder's remaining lease, capped; see lock-service.ts), never grants anything.
 */
export class RedisReleaseBridge implements ReleaseBridge {
  private readonly publisher: Redis | Cluster;
  private readonly subscriber: Redis | Cluster;

  constructor(
    topology: RedisTopology,
    private readonly instanceId: string,
  ) {
    this.publisher = connect(topology, PUBLISHER);
    this.subscriber = connect(topology, SUBSCRIBER);
    // Errors are retried by ioredis; without a listener Node would throw them.
    this.publisher.on("error", () => undefined);
    this.subscriber.on("error", () => undefined);
  }

  publish(key: LockKey): void {
    const message = JSON.stringify([this.instanceId, key.resource, key.businessKey]);
    this.publisher.publish(RELEASE_CHANNEL, message).catch(() => undefined);
  }

  subscribe(onRelease: (key: LockKey) => void): void {
    this.subscriber.on("message", (channel: string, message: string) => {
      if (channel !== RELEASE_CHANNEL) return;
      const parsed = parse(message);
      if (parsed && parsed[0] !== this.instanceId) {
        onRelease({ resource: parsed[1], businessKey: parsed[2] });
      }
    });
    this.subscriber.subscribe(RELEASE_CHANNEL).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.publisher.disconnect();
    this.subscriber.disconnect();
  }
}

function parse(message: string): [string, string, string] | null {
  try {
    const value: unknown = JSON.parse(message);
    if (Array.isArray(value) && value.length === 3 && value.every((v) => typeof v === "string")) {
      return value as [string, string, string];
    }
  } catch {
    // Not ours: another publisher on the channel.
  }
  return null;
}
