import type { Cluster, Redis } from "ioredis";
import type { RedisTopology } from "@warden/core";
import { connect } from "../locks/redis-release-bridge.js";
import type { FleetTransport } from "./fleet-bus.js";

/** The pub/sub channel of the fleet bus. */
export const FLEET_CHANNEL = "warden:fleet";

// The publisher never queues: a message that cannot leave now fails, and the fleet bus
// decides (events are dropped, statistics sent again later, a greeting sent again). The
// subscriber queues its SUBSCRIBE until connected and ioredis subscribes again after a
// reconnect.
const PUBLISHER = { maxRetriesPerRequest: 1, enableOfflineQueue: false };
const SUBSCRIBER = { maxRetriesPerRequest: null, enableOfflineQueue: true };

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
    // After a reconnect ioredis sends its SUBSCRIBE again as it turns ready; one more on the
    // same connection is answered after it, so its reply says the subscription is back (a
    // fixed delay guessed it, and a greeting sent before then missed the answers).
    this.subscriber.on("ready", () => {
      if (!subscribed || this.closed) return;
      this.subscriber
        .subscribe(FLEET_CHANNEL)
        .then(() => {
          if (!this.closed) onReady();
        })
        .catch(() => undefined);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.publisher.disconnect();
    this.subscriber.disconnect();
  }
}
