import type { LockEvent } from "@warden/core";
import type { Logger } from "pino";
import { recordOfEvent, type AuditRecord } from "../audit/audit-record.js";
import { SHARE_WAITS_EVERY_MS, type SharedWait } from "../locks/fleet-waits.js";
import type { WaitQueues } from "../locks/wait-queues.js";
import { isRevokeRequest, type RevokeRequest } from "../protocol/revoke-relay.js";
import type { LeaseTracker, TrackedLease } from "../stats/lease-tracker.js";
import type { StatsCollector } from "../stats/stats-collector.js";
import type { LiveBus } from "./live-bus.js";
import type { PermitTracker } from "./permit-tracker.js";

/** Carries fleet messages between server instances (Redis pub/sub in production). */
export interface FleetTransport {
  /** Sends to every instance (this one included); resolves to how many received it. */
  publish(message: string): Promise<number>;
  /** Calls `onMessage` for every message; `onReady` whenever the subscription (re)starts. */
  subscribe(onMessage: (message: string) => void, onReady: () => void): void;
  /** True when `publish`'s count includes every instance (not on Redis Cluster). */
  readonly countsReceivers: boolean;
  close(): Promise<void>;
}

/** One message on the fleet channel. */
interface FleetMessage {
  /** The sending instance. */
  readonly from: string;
  /** Lock events its stores emitted (refusals excepted), each with its resource's tenant. */
  readonly events?: [LockEvent, string | null][];
  /** Audit records the server itself made (tier, stale fence, renewal refused…). */
  readonly records?: AuditRecord[];
  /** Finished seconds of its statistics. */
  readonly stats?: { second: number; slots: unknown }[];
  /** Leases it knows of, sent to a newcomer. */
  readonly leases?: TrackedLease[];
  /** A newcomer (or an instance back from a Redis outage) asks for leases and statistics. */
  readonly hello?: true;
  /** The sender has live subscribers (said every {@link WATCH_EVERY_MS} while it does). */
  readonly watching?: true;
  /** Its waiters per resource now (said every second while it has or just had some). */
  readonly waiters?: Record<string, number>;
  /** Waits it runs: new ones, and all of them again every {@link SHARE_WAITS_EVERY_MS}. */
  readonly waits?: SharedWait[];
  /** Refs of its waits that ended. */
  readonly waitsEnded?: string[];
  /** Asks the instance running the wait `ref` to cancel it (a cancelWait sent elsewhere). */
  readonly cancelWait?: {
    readonly ref: string;
    readonly tenantId: string;
    readonly waitId: string;
  };
  /** Asks every instance to pass a revoke request to the holder's connections (decision 0176). */
  readonly revokeRequest?: RevokeRequest;
  /** Semaphore permit grants and renewals it made (or, to a newcomer, every one it knows). */
  readonly permits?: unknown[];
  /** LockIds of permit grants it saw released. */
  readonly permitsEnded?: unknown[];
  /** Read-write grants and renewals it made (or, to a newcomer, every one it knows). */
  readonly rwGrants?: unknown[];
  /** LockIds of read-write grants it saw released. */
  readonly rwGrantsEnded?: unknown[];
}

/** Options of {@link FleetBus}. */
export interface FleetBusOptions {
  readonly transport: FleetTransport;
  readonly instanceId: string;
  readonly live: LiveBus;
  readonly tracker: LeaseTracker;
  readonly stats: StatsCollector;
  readonly logger: Logger;
  /** This instance's waiters per resource, shared every second. */
  readonly waiters?: () => ReadonlyMap<string, number>;
  /**
   * This instance's wait queues: its waits are shared so every instance lists and cancels
   * them (docs/decisions/0155), and other instances' waits are kept in `remote`.
   */
  readonly waits?: Pick<
    WaitQueues,
    "attachFleet" | "takeChanges" | "ownShared" | "cancelRef" | "remote"
  >;
  /** Hands another instance's revoke requests to this instance's lock connections. */
  readonly revokes?: { deliver(request: RevokeRequest): unknown };
  /**
   * The semaphore permits this instance knows: its grants, renewals and releases are
   * shared, and the other instances' are kept here (docs/decisions/0162).
   */
  readonly permits?: Pick<
    PermitTracker,
    "attachFleet" | "takeChanges" | "announceAll" | "adopt" | "drop"
  >;
  /**
   * The read-write grants this instance knows, shared like the permits so every instance's
   * live-holds gauge and long-hold detection cover the fleet (docs/decisions/0194).
   */
  readonly rwGrants?: Pick<
    PermitTracker,
    "attachFleet" | "takeChanges" | "announceAll" | "adopt" | "drop"
  >;
  /** How often events are sent, in ms. @defaultValue 100 */
  readonly flushMs?: number;
  /**
   * How long after a greeting, or an answer to one, that Redis did not take it is sent
   * again, in ms. @defaultValue 1000
   */
  readonly greetRetryMs?: number;
}

// A message stays well under Redis's limits and a receiver's event-loop turn.
const MAX_EVENTS_PER_MESSAGE = 2_000;
const SECONDS_PER_MESSAGE = 60;
const STATS_WINDOW_SEC = 3_600;
// An instance with live subscribers says so this often; senders trust it twice as long.
const WATCH_EVERY_MS = 2_000;
const WATCH_TRUST_MS = 2 * WATCH_EVERY_MS + 1_000;
// A greeting or an answer that Redis did not take is sent again this much later.
const GREET_RETRY_MS = 1_000;

/**
 * Events that end a lease, for dropping a grant and its end sent in one batch. Not a
 * replication-timeout: an undone first grant was never reported granted, and one naming a
 * granted lease undid a re-entry only, so the lease lives on.
 */
function endsLease(event: LockEvent): boolean {
  return (
    (event.type === "release" && event.released) ||
    event.type === "force-release" ||
    event.type === "expired" ||
    event.type === "outcome-unknown"
  );
}

/**
 * The batch without the leases that begin and end inside it: no tracker needs them, and
 * without a live subscriber anywhere nobody else does. Re-entries and renewals of such a
 * lease go with it.
 */
function withoutShortHolds(events: [LockEvent, string | null][]): [LockEvent, string | null][] {
  const granted = new Set<string>();
  const done = new Set<string>();
  for (const [event] of events) {
    if (event.type === "refusal") continue;
    // A re-entry's lease may have begun in an earlier batch: only a first grant counts.
    if (event.type === "grant" && event.reentry === 1) granted.add(event.lockId);
    else if (endsLease(event) && granted.has(event.lockId)) done.add(event.lockId);
  }
  if (done.size === 0) return events;
  return events.filter(([event]) => event.type === "refusal" || !done.has(event.lockId));
}

/**
 * What a flush sends while nobody watches, and what it keeps for the next one: the batch
 * (the events held back last time, then the new ones) without its short holds, less the
 * leases first granted among the new events, which wait one more flush with everything
 * of theirs. A lease released within about a flush of its grant then never travels; before,
 * the few in a hundred short holds that straddled two batches cost two events each on
 * every other instance (docs/decisions/0212).
 */
function holdBackFreshGrants(
  events: [LockEvent, string | null][],
  carried: number,
): { send: [LockEvent, string | null][]; keep: [LockEvent, string | null][] } {
  const fresh = new Set<string>();
  for (let index = carried; index < events.length; index += 1) {
    const event = events[index]![0];
    if (event.type === "grant" && event.reentry === 1) fresh.add(event.lockId);
  }
  const batch = withoutShortHolds(events);
  if (fresh.size === 0) return { send: batch, keep: [] };
  const send: [LockEvent, string | null][] = [];
  const keep: [LockEvent, string | null][] = [];
  for (const entry of batch) {
    const [event] = entry;
    if (event.type !== "refusal" && fresh.has(event.lockId)) keep.push(entry);
    else send.push(entry);
  }
  return { send, keep };
}

/** The record types that grant a permit or a read-write lock, and those that end one. */
const GRANT_RECORDS = new Set(["permit-grant", "rwlock-grant"]);
const END_RECORDS = new Set([
  "permit-release",
  "permit-expired",
  "permit-force-release",
  "rwlock-release",
  "rwlock-expired",
  "rwlock-force-release",
]);

/**
 * The records of a batch without the permit and read-write grants that begin and end in it:
 * records only feed the other instances' live feeds, and while no instance has a live
 * subscriber a grant nobody can see any more is not worth sending (the permit and
 * read-write trackers share grants that outlive a flush on their own). Like
 * {@link withoutShortHolds} for the mutex's lock events.
 */
function withoutShortGrants(records: AuditRecord[]): AuditRecord[] {
  const granted = new Set<string>();
  const done = new Set<string>();
  for (const record of records) {
    if (record.lockId === null) continue;
    if (GRANT_RECORDS.has(record.type)) granted.add(record.lockId);
    else if (END_RECORDS.has(record.type) && granted.has(record.lockId)) done.add(record.lockId);
  }
  if (done.size === 0) return records;
  return records.filter((record) => record.lockId === null || !done.has(record.lockId));
}

/**
 * Shares what each instance sees with the whole fleet over one channel
 * (docs/decisions/0071): its lock events (so every instance's lease tracker — live locks,
 * long holds, renewal counts, holder facts — and live feed cover the fleet), the audit
 * records it makes, and its statistics second by second (so `stats.*` answer the same on
 * every instance), and the waits it runs (so every instance lists the fleet's waiters
 * and a cancelWait reaches the instance running the wait, docs/decisions/0155). While
 * alone (standalone or sentinel Redis reports one receiver) it sends no events or waits;
 * a newcomer's `hello` makes every instance send the leases it knows, its last hour of
 * statistics and its waits. While no instance has a live subscriber, a lease's events
 * leave one flush after its grant, and not at all when it ended by then
 * (docs/decisions/0212). While Redis is down, events are dropped (each instance still
 * audits and serves its own), and unsent seconds of statistics are sent when it is back;
 * once its subscription is back, an instance also sends what it would answer a `hello`
 * with, since what it published before the others subscribed again reached no one
 * (docs/decisions/0234).
 *
 * The greeting is the only way a newcomer learns what the fleet already holds, so neither
 * half of it is lost to a publish that failed (docs/decisions/0204): the `hello` is sent
 * again until Redis takes it, and an answer that did not leave in full is sent again in
 * full (receivers replace what they knew, so an answer twice is harmless).
 */
export class FleetBus {
  private events: [LockEvent, string | null][] = [];
  /** Events of leases granted in the last batch, held back one flush (holdBackFreshGrants). */
  private heldBack: [LockEvent, string | null][] = [];
  private records: AuditRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Seconds of own statistics sent up to (inclusive). */
  private sentUpTo: number;
  private alone = false;
  /** Greetings received; a receiver count taken before the latest one is stale. */
  private greetings = 0;
  private sending: Promise<void> = Promise.resolve();
  /** When another instance last said it has live subscribers, by instance. */
  private readonly watchers = new Map<string, number>();
  private lastWatchSaidMs = 0;
  private lastWaitersMs = 0;
  private hadWaiters = false;
  private lastWaitsMs = 0;
  private readonly flushMs: number;
  private readonly greetRetryMs: number;
  private closed = false;
  /** Bumped by each (re)start of the subscription: the retries of an older hello stop. */
  private helloRound = 0;
  private helloTimer: NodeJS.Timeout | undefined;
  private answerTimer: NodeJS.Timeout | undefined;
  /**
   * How this instance's own messages begin (every message is built with `from` first): the
   * channel echoes them back, and they are dropped before parsing — with one busy instance
   * that parse was a visible share of its CPU.
   */
  private readonly ownPrefix: string;

  constructor(private readonly options: FleetBusOptions) {
    this.flushMs = options.flushMs ?? 100;
    this.greetRetryMs = options.greetRetryMs ?? GREET_RETRY_MS;
    this.ownPrefix = `{"from":${JSON.stringify(options.instanceId)},`;
    this.sentUpTo = Math.floor(Date.now() / 1000) - 1;
    options.permits?.attachFleet();
    options.rwGrants?.attachFleet();
    options.waits?.attachFleet({
      requestCancel: (wait) =>
        this.send({
          from: options.instanceId,
          cancelWait: { ref: wait.ref, tenantId: wait.tenantId, waitId: wait.waitId ?? "" },
        }),
      hasPeers: () => !this.alone,
    });
  }

  /** Subscribes, greets the fleet once the subscription is live, and starts sending. */
  start(): void {
    let subscribedBefore = false;
    this.options.transport.subscribe(
      (message) => this.receive(message),
      () => {
        this.sayHello();
        // Back after its subscription dropped (Redis restarted or failed over): what it
        // published meanwhile may have reached no one, since Redis takes a publish with no
        // subscriber, and an instance whose subscription came back first said hello while
        // this one could not hear it. So it answers as though greeted (docs/decisions/0234).
        if (subscribedBefore) void this.answer();
        subscribedBefore = true;
      },
    );
    this.timer ??= setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  /** A lock event of this instance's stores, and the tenant owning its resource. */
  lockEvent(event: LockEvent, tenantId: string | null): void {
    if (this.alone || event.type === "refusal") return;
    this.events.push([event, tenantId]);
  }

  /** An audit record this instance made (for the other instances' live feeds). */
  record(record: AuditRecord): void {
    if (this.alone) return;
    this.records.push(record);
  }

  /**
   * Sends a revoke request to the other instances at once (not batched: it is rare and
   * someone waits on it); false when Redis did not take it. The sender delivers its own.
   */
  requestRevoke(request: RevokeRequest): Promise<boolean> {
    return this.send({ from: this.options.instanceId, revokeRequest: request });
  }

  /** Sends what is pending now; serialized. */
  flush(): Promise<void> {
    this.sending = this.sending.then(() => this.flushOnce());
    return this.sending;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    clearTimeout(this.helloTimer);
    clearTimeout(this.answerTimer);
    await this.flush();
    await this.options.transport.close();
  }

  private async flushOnce(): Promise<void> {
    const { instanceId } = this.options;
    const now = Date.now();
    const watched = this.someoneWatches(now);
    const carried = this.heldBack.length;
    const batch = carried === 0 ? this.events : this.heldBack.concat(this.events);
    let events = batch;
    this.heldBack = [];
    // A live subscriber sees every event now; a closing instance sends what it held back.
    if (!watched && !this.closed) {
      const { send, keep } = holdBackFreshGrants(batch, carried);
      events = send;
      this.heldBack = keep;
    }
    const records = watched ? this.records : withoutShortGrants(this.records);
    this.events = [];
    this.records = [];
    if (this.options.live.active && now - this.lastWatchSaidMs >= WATCH_EVERY_MS) {
      if (await this.send({ from: instanceId, watching: true })) this.lastWatchSaidMs = now;
    }
    await this.sendWaiters(now);
    await this.sendWaits(now);
    await this.sendGrants(this.options.permits, "permits", "permitsEnded");
    await this.sendGrants(this.options.rwGrants, "rwGrants", "rwGrantsEnded");
    for (let index = 0; index < events.length; index += MAX_EVENTS_PER_MESSAGE)
      await this.send({
        from: instanceId,
        events: events.slice(index, index + MAX_EVENTS_PER_MESSAGE),
      });
    if (records.length > 0) await this.send({ from: instanceId, records });
    const lastDone = Math.floor(Date.now() / 1000) - 1;
    if (lastDone > this.sentUpTo) {
      const from = Math.max(this.sentUpTo + 1, lastDone - STATS_WINDOW_SEC + 1);
      if (await this.sendStats(from, lastDone)) this.sentUpTo = lastDone;
    }
  }

  /** Every second while this instance has waiters, and once more when it has none left. */
  private async sendWaiters(now: number): Promise<void> {
    if (!this.options.waiters || now - this.lastWaitersMs < 1_000) return;
    const counts = this.options.waiters();
    if (counts.size === 0 && !this.hadWaiters) return;
    if (await this.send({ from: this.options.instanceId, waiters: Object.fromEntries(counts) })) {
      this.lastWaitersMs = now;
      this.hadWaiters = counts.size > 0;
    }
  }

  /**
   * Its waits that started and ended since the last flush; every SHARE_WAITS_EVERY_MS all
   * of them again (receivers forget waits not repeated in time). Nothing while alone.
   */
  private async sendWaits(now: number): Promise<void> {
    const { waits, instanceId } = this.options;
    if (!waits) return;
    waits.remote.expire(now);
    const { started, ended } = waits.takeChanges();
    if (this.alone) return;
    if (now - this.lastWaitsMs >= SHARE_WAITS_EVERY_MS) {
      this.lastWaitsMs = now;
      await this.sendAllWaits(ended);
      return;
    }
    if (started.length > 0 || ended.length > 0) {
      for (let index = 0; index < Math.max(started.length, 1); index += MAX_EVENTS_PER_MESSAGE)
        await this.send({
          from: instanceId,
          waits: started.slice(index, index + MAX_EVENTS_PER_MESSAGE),
          ...(index === 0 ? { waitsEnded: ended } : {}),
        });
    }
  }

  /**
   * Its permit (or read-write) grants, renewals and releases since the last flush; nothing
   * while alone.
   */
  private async sendGrants(
    grants: Pick<PermitTracker, "takeChanges"> | undefined,
    field: "permits" | "rwGrants",
    endedField: "permitsEnded" | "rwGrantsEnded",
  ): Promise<void> {
    if (!grants) return;
    const { seen, ended } = grants.takeChanges();
    if (this.alone || (seen.length === 0 && ended.length === 0)) return;
    for (let index = 0; index < Math.max(seen.length, 1); index += MAX_EVENTS_PER_MESSAGE)
      await this.send({
        from: this.options.instanceId,
        [field]: seen.slice(index, index + MAX_EVENTS_PER_MESSAGE),
        ...(index === 0 ? { [endedField]: ended } : {}),
      });
  }

  /** All its waits (chunked), and the ones that ended; false when a message was not sent. */
  private async sendAllWaits(ended: string[]): Promise<boolean> {
    const { waits, instanceId } = this.options;
    if (!waits) return true;
    const all = waits.ownShared();
    if (all.length === 0 && ended.length === 0) return true;
    let sentAll = true;
    for (let index = 0; index < Math.max(all.length, 1); index += MAX_EVENTS_PER_MESSAGE) {
      const sent = await this.send({
        from: instanceId,
        waits: all.slice(index, index + MAX_EVENTS_PER_MESSAGE),
        ...(index === 0 ? { waitsEnded: ended } : {}),
      });
      sentAll &&= sent;
    }
    return sentAll;
  }

  private someoneWatches(now: number): boolean {
    for (const [instance, at] of this.watchers) {
      if (now - at <= WATCH_TRUST_MS) return true;
      this.watchers.delete(instance);
    }
    return false;
  }

  /** Sends own statistics of [fromSec, toSec]; false when a message could not be sent. */
  private async sendStats(fromSec: number, toSec: number): Promise<boolean> {
    const seconds = this.options.stats.ownSeconds(fromSec, toSec);
    for (let index = 0; index < seconds.length; index += SECONDS_PER_MESSAGE) {
      const sent = await this.send({
        from: this.options.instanceId,
        stats: seconds.slice(index, index + SECONDS_PER_MESSAGE),
      });
      if (!sent) return false;
    }
    return true;
  }

  private async send(message: FleetMessage): Promise<boolean> {
    try {
      const greetings = this.greetings;
      const receivers = await this.options.transport.publish(JSON.stringify(message));
      // Only this instance listens: events would go nowhere until someone says hello.
      if (this.options.transport.countsReceivers && greetings === this.greetings)
        this.alone = receivers <= 1;
      return true;
    } catch {
      return false;
    }
  }

  private receive(text: string): void {
    if (text.startsWith(this.ownPrefix)) return;
    let message: FleetMessage;
    try {
      message = JSON.parse(text) as FleetMessage;
    } catch {
      return;
    }
    if (typeof message !== "object" || message === null || typeof message.from !== "string") return;
    if (message.from === this.options.instanceId) return;
    try {
      this.apply(message);
    } catch (error) {
      this.options.logger.warn({ err: error, from: message.from }, "fleet message not applied");
    }
  }

  private apply(message: FleetMessage): void {
    const { tracker, live, stats } = this.options;
    if (message.watching) this.watchers.set(message.from, Date.now());
    if (message.waiters !== undefined) stats.mergeRemoteWaiters(message.from, message.waiters);
    const { waits } = this.options;
    if (waits) {
      if (Array.isArray(message.waits))
        waits.remote.upsert(message.from, message.waits, Date.now());
      if (Array.isArray(message.waitsEnded)) waits.remote.end(message.from, message.waitsEnded);
      const cancel = message.cancelWait;
      if (
        typeof cancel === "object" &&
        cancel !== null &&
        typeof cancel.ref === "string" &&
        typeof cancel.tenantId === "string" &&
        typeof cancel.waitId === "string"
      ) {
        waits.cancelRef(cancel.ref, cancel.tenantId, cancel.waitId);
      }
    }
    if (isRevokeRequest(message.revokeRequest))
      this.options.revokes?.deliver(message.revokeRequest);
    if (message.hello) {
      this.greetings += 1;
      this.alone = false;
      void this.answer();
    }
    if (Array.isArray(message.leases)) for (const lease of message.leases) tracker.adopt(lease);
    if (Array.isArray(message.permits)) this.options.permits?.adopt(message.permits);
    if (Array.isArray(message.permitsEnded)) this.options.permits?.drop(message.permitsEnded);
    if (Array.isArray(message.rwGrants)) this.options.rwGrants?.adopt(message.rwGrants);
    if (Array.isArray(message.rwGrantsEnded)) this.options.rwGrants?.drop(message.rwGrantsEnded);
    if (Array.isArray(message.events)) {
      for (const [event, tenantId] of message.events) {
        const { lease } = tracker.observe(event);
        if (!live.active) continue;
        if (event.type === "expired" && lease === null) continue;
        live.publish({ kind: "event", event: recordOfEvent(event, { tenantId, lease }) });
      }
    }
    if (Array.isArray(message.records))
      for (const record of message.records) live.publish({ kind: "event", event: record });
    if (Array.isArray(message.stats))
      for (const second of message.stats)
        stats.mergeRemote(message.from, second.second, second.slots);
  }

  /**
   * Says hello to the fleet (its subscription is live: every answer reaches it), and again
   * every {@link greetRetryMs} until Redis took it. Sent once, a hello that failed (the
   * publisher not connected yet while the subscriber is, or back from an outage later than
   * it) left this instance without the fleet's leases, permits and read-write grants for
   * good: the others only ever send their changes.
   */
  private sayHello(): void {
    clearTimeout(this.helloTimer);
    this.helloTimer = undefined;
    this.helloRound += 1;
    const round = this.helloRound;
    void this.send({ from: this.options.instanceId, hello: true }).then((sent) => {
      if (sent || this.closed || round !== this.helloRound) return;
      this.helloTimer = setTimeout(() => {
        if (!this.closed && round === this.helloRound) this.sayHello();
      }, this.greetRetryMs);
      this.helloTimer.unref();
    });
  }

  /**
   * Answers a hello; an answer that did not leave in full is sent again, in full and as
   * of then, {@link greetRetryMs} later (one retry pending however many hellos failed).
   */
  private async answer(): Promise<void> {
    if ((await this.greet()) || this.closed || this.answerTimer) return;
    this.answerTimer = setTimeout(() => {
      this.answerTimer = undefined;
      if (!this.closed) void this.answer();
    }, this.greetRetryMs);
    this.answerTimer.unref();
  }

  /**
   * Sends a newcomer the leases this instance knows, its last hour of statistics, its
   * waits, and the permit and read-write grants it knows; false (at once) when a message
   * was not sent.
   */
  private async greet(): Promise<boolean> {
    const { instanceId } = this.options;
    const leases = [...this.options.tracker.all()];
    for (let index = 0; index < leases.length; index += MAX_EVENTS_PER_MESSAGE) {
      const sent = await this.send({
        from: instanceId,
        leases: leases.slice(index, index + MAX_EVENTS_PER_MESSAGE),
      });
      if (!sent) return false;
    }
    const lastDone = Math.floor(Date.now() / 1000) - 1;
    if (!(await this.sendStats(lastDone - STATS_WINDOW_SEC + 1, Math.min(lastDone, this.sentUpTo))))
      return false;
    if (!(await this.sendAllWaits([]))) return false;
    for (const [field, grants] of [
      ["permits", this.options.permits],
      ["rwGrants", this.options.rwGrants],
    ] as const) {
      // Each list is taken right before it leaves: an end sent meanwhile is not undone.
      const all = grants?.announceAll() ?? [];
      for (let index = 0; index < all.length; index += MAX_EVENTS_PER_MESSAGE) {
        const sent = await this.send({
          from: instanceId,
          [field]: all.slice(index, index + MAX_EVENTS_PER_MESSAGE),
        });
        if (!sent) return false;
      }
    }
    return true;
  }
}
