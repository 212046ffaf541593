import type { Cluster, Redis } from "ioredis";
import type { RedisTopology } from "@warden/core";
import { connect } from "../locks/redis-release-bridge.js";
import type { FleetTransport } from "./fleet-bus.js";

/** The pub/sub channel of the fleet bus. */
export const FLEET_CHANNEL = "warden:fleet";

// The publisher never queues: a message that cannot leave now fails, and the fleet bus
// decides (events are dropped, statistics sent again later). The subscriber queues its
// SUBSCRIBE until connected and ioredis subscribes again after a reconnect.
const PUBLISHER = { maxRetriesPerRequest: 1, enableOfflineQueue: false };
const SUBSCRIBER = { maxRetriesPerRequest: null, enableOfflineQueue: true };
// After a reconnect, greet once the subscription is back (ioredis restores it on ready).
const GREET_DELAY_MS = 200;

/** The fleet bus over Redis pub/sub (standalone, sentinel or cluster). */
export class RedisFleetTransport implements FleetTransport {
  private readonly publisher: Redis | Cluster;
  private readonly subscriber: Redis | Cluster;
  readonly countsReceivers: boolean;
  private closed = false;

  constructor(topology: RedisTopology) {
    this.publisher = connect(topology, PUBLISHER);
    this.subscriber = connect(topology, SUBSCRIBER);
    // On a cluster PUBLISH counts the receivers of one node only.
    this.countsReceivers = topology.mode !== "cluster";
    // Errors are retried by ioredis; without a listener Node would throw them.
    this.publisher.on("error", () => undefined);
    this.subscriber.on("error", () => undefined);
  }

  publish(message: string): Promise<number> {
    return this.publisher.publish(FLEET_CHANNEL, message);
  }

  subscribe(onMessage: (message: string) => void, onReady: () => void): void {
    this.subscriber.on("message", (channel: string, message: string) => {
      if (channel === FLEET_CHANNEL) onMessage(message);
    });
    let subscribed = false;
    this.subscriber
      .subscribe(FLEET_CHANNEL)
      .then(() => {
        subscribed = true;
        onReady();
      })
      .catch(() => undefined);
    this.subscriber.on("ready", () => {
      if (!subscribed || this.closed) return;
      setTimeout(() => {
        if (!this.closed) onReady();
      }, GREET_DELAY_MS).unref();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.publisher.disconnect();
    this.subscriber.disconnect();
  }
}
