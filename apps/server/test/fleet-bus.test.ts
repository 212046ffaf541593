import { pino } from "pino";
import { describe, expect, it, vi } from "vitest";
import { FleetBus, type FleetTransport } from "../src/live/fleet-bus.js";
import { auditRecord } from "../src/audit/audit-record.js";
import { LiveBus } from "../src/live/live-bus.js";
import { PermitTracker, type TrackedPermit } from "../src/live/permit-tracker.js";
import { LeaseTracker } from "../src/stats/lease-tracker.js";
import { StatsCollector } from "../src/stats/stats-collector.js";

/**
 * An in-process channel standing in for Redis pub/sub in these unit tests of the bus's
 * own rules (the Redis transport is exercised in fleet-live-and-stats.test.ts).
 */
class Channel {
  readonly members: {
    onMessage: (m: string) => void;
    onReady: () => void;
    subscribed: boolean;
  }[] = [];
  up = true;
  /** Redis restarted: every subscription is gone until its member subscribes again. */
  restart(): void {
    for (const member of this.members) member.subscribed = false;
  }
  /** The member (by join order) has subscribed again; its transport says it is ready. */
  resubscribe(index: number): void {
    const member = this.members[index]!;
    member.subscribed = true;
    member.onReady();
  }
  /** Messages Redis does not take (a publisher not connected yet, a hiccup). */
  refuse: ((message: string) => boolean) | undefined;
  transport(): FleetTransport {
    return {
      countsReceivers: true,
      publish: async (message) => {
        if (!this.up || this.refuse?.(message)) throw new Error("Redis is unreachable");
        const receivers = this.members.filter((member) => member.subscribed);
        for (const member of receivers) member.onMessage(message);
        return receivers.length;
      },
      subscribe: (onMessage, onReady) => {
        this.members.push({ onMessage, onReady, subscribed: true });
        onReady();
      },
      close: async () => undefined,
    };
  }
}

const GREET_RETRY_MS = 1_000;

function member(channel: Channel, name: string) {
  const stats = new StatsCollector();
  const tracker = new LeaseTracker();
  const live = new LiveBus();
  const permits = new PermitTracker();
  const bus = new FleetBus({
    transport: channel.transport(),
    instanceId: name,
    live,
    tracker,
    stats,
    permits,
    logger: pino({ level: "silent" }),
    flushMs: 60_000,
    greetRetryMs: GREET_RETRY_MS,
  });
  bus.start();
  return { stats, tracker, bus, live, permits };
}

const permit = (lockId: string): TrackedPermit => ({
  tenantId: "t1",
  resource: "sem:a",
  businessKey: "k",
  lockId,
  fence: "1",
  holder: { clientId: "c", ownerId: "early" },
  permits: 1,
  tier: "redis",
  grantedAt: Date.now(),
  expiresAt: Date.now() + 60_000,
});

/** Runs `body` with fake timeouts (the bus's flush interval stays real and far away). */
async function withFakeTimeouts(body: () => Promise<void>): Promise<void> {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  try {
    await body();
  } finally {
    vi.useRealTimers();
  }
}

const grant = (lockId: string, at: number) =>
  ({
    type: "grant",
    resource: "res:a",
    businessKey: lockId,
    tier: "redis",
    at,
    lockId,
    fence: "1",
    holder: { clientId: "c", ownerId: "o" },
    leaseMs: 30_000,
    reentry: 1,
    grantedAt: at,
    renewals: 0,
  }) as const;

describe("fleet bus", () => {
  it("statistics of the seconds it could not send are sent once the channel is back", async () => {
    const channel = new Channel();
    const a = member(channel, "a");
    const b = member(channel, "b");
    channel.up = false;
    for (let i = 0; i < 7; i += 1) a.stats.recordAcquire("res:a", "granted", 1);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await a.bus.flush();
    expect(b.stats.totals(60).get("res:a")?.acquires ?? 0).toBe(0);
    channel.up = true;
    await a.bus.flush();
    expect(b.stats.totals(60).get("res:a")?.acquires).toBe(7);
    // Sent again (a newcomer's greeting): replaced, not added.
    channel.members[0]!.onMessage(JSON.stringify({ from: "c", hello: true }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await a.bus.flush();
    expect(b.stats.totals(60).get("res:a")?.acquires).toBe(7);
  });

  it("buffers no lock events while it is the only member, and shares leases with a newcomer", async () => {
    const channel = new Channel();
    const a = member(channel, "a");
    // The greeting told it that it is alone.
    await a.bus.flush();
    const event = grant("L1", Date.now());
    a.tracker.observe(event);
    a.bus.lockEvent(event, "t1");
    expect((a.bus as unknown as { events: unknown[] }).events).toHaveLength(0);
    const b = member(channel, "b");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(b.tracker.find({ resource: "res:a", businessKey: "L1" }, "L1")?.fence).toBe("1");
    const next = grant("L2", Date.now());
    a.bus.lockEvent(next, "t1");
    await a.bus.flush();
    // A lease granted since the last flush waits one more (decision 0212).
    expect(b.tracker.find({ resource: "res:a", businessKey: "L2" }, "L2")).toBeUndefined();
    await a.bus.flush();
    expect(b.tracker.find({ resource: "res:a", businessKey: "L2" }, "L2")).toBeDefined();
  });

  it("shares a lease whose re-entry too few replicas acknowledged: only the entry was undone", async () => {
    const channel = new Channel();
    const a = member(channel, "a");
    const b = member(channel, "b");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const at = Date.now();
    a.bus.lockEvent(grant("KEPT", at), "t1");
    a.bus.lockEvent(
      {
        type: "replication-timeout",
        resource: "res:a",
        businessKey: "KEPT",
        tier: "redis",
        at: at + 1,
        lockId: "KEPT",
        required: 1,
        acknowledged: 0,
      },
      "t1",
    );
    await a.bus.flush();
    await a.bus.flush(); // a new lease waits one flush (decision 0212)
    expect(b.tracker.find({ resource: "res:a", businessKey: "KEPT" }, "KEPT")).toBeDefined();
  });

  it("holds a new lease back one flush: one released by then never travels, one still held goes with all of its events", async () => {
    const channel = new Channel();
    const a = member(channel, "a");
    const b = member(channel, "b");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const messages: string[] = [];
    channel.members.push({
      onMessage: (m) => messages.push(m),
      onReady: () => undefined,
      subscribed: true,
    });
    const eventsSent = () =>
      messages.flatMap((m) => {
        const parsed = JSON.parse(m) as { events?: [{ type: string; lockId: string }, unknown][] };
        return (parsed.events ?? []).map(([event]) => `${event.type}:${event.lockId}`);
      });
    const at = Date.now();
    const facts = {
      resource: "res:a",
      tier: "redis" as const,
      fence: "1",
      grantedAt: at,
      renewals: 0,
    };
    const holder = { clientId: "c", ownerId: "o" };
    const release = (lockId: string) =>
      ({
        ...facts,
        type: "release",
        businessKey: lockId,
        lockId,
        holder,
        at,
        released: true,
        reentry: 0,
      }) as const;
    const extend = (lockId: string) =>
      ({
        ...facts,
        type: "extend",
        businessKey: lockId,
        lockId,
        holder,
        at,
        renewals: 1,
        leaseMs: 30_000,
        expiresAt: at + 30_000,
      }) as const;
    // Batch 1: SHORT and LONG are granted.
    a.bus.lockEvent(grant("SHORT", at), "t1");
    a.bus.lockEvent(grant("LONG", at), "t1");
    await a.bus.flush();
    expect(eventsSent()).toEqual([]);
    // Batch 2: SHORT is released, LONG renewed, NEW granted.
    a.bus.lockEvent(release("SHORT"), "t1");
    a.bus.lockEvent(extend("LONG"), "t1");
    a.bus.lockEvent(grant("NEW", at), "t1");
    await a.bus.flush();
    expect(eventsSent()).toEqual(["grant:LONG", "extend:LONG"]);
    expect(b.tracker.find({ resource: "res:a", businessKey: "LONG" }, "LONG")).toBeDefined();
    expect(b.tracker.find({ resource: "res:a", businessKey: "SHORT" }, "SHORT")).toBeUndefined();
    // Closing sends what it still holds back.
    await a.bus.close();
    expect(eventsSent()).toEqual(["grant:LONG", "extend:LONG", "grant:NEW"]);
    expect(b.tracker.find({ resource: "res:a", businessKey: "NEW" }, "NEW")).toBeDefined();
  });

  it("leaves out holds that begin and end in one batch unless some instance has a live subscriber", async () => {
    const channel = new Channel();
    const a = member(channel, "a");
    const b = member(channel, "b");
    const seen: string[] = [];
    const cycle = async (lockId: string) => {
      const at = Date.now();
      a.bus.lockEvent(grant(lockId, at), "t1");
      a.bus.lockEvent(
        {
          type: "release",
          resource: "res:a",
          businessKey: lockId,
          tier: "redis",
          at: at + 1,
          lockId,
          fence: "1",
          holder: { clientId: "c", ownerId: "o" },
          grantedAt: at,
          renewals: 0,
          released: true,
          reentry: 0,
        },
        "t1",
      );
      await a.bus.flush();
    };
    const unsubscribe = b.live.subscribe((m) => {
      if (m.kind === "event") seen.push(`${m.event.type}:${m.event.lockId}`);
    });
    await cycle("SHORT");
    // Nobody had said it watches yet: the short hold stayed home.
    expect(seen).toEqual([]);
    await b.bus.flush(); // b says it has a live subscriber
    await cycle("SEEN");
    expect(seen).toEqual(["grant:SEEN", "release:SEEN"]);
    unsubscribe();
  });

  it("sends no permit or read-write grant that begins and ends in one batch unless someone watches; nothing while alone", async () => {
    const channel = new Channel();
    const a = member(channel, "a");
    const record = (type: string, lockId: string | null) =>
      auditRecord({
        type,
        tenantId: "t1",
        resource: "res:s",
        businessKey: "k",
        lockId,
        at: Date.now(),
      });
    const sent = () => (a.bus as unknown as { records: unknown[] }).records.length;
    // Alone (the greeting found no other receiver): records are not even buffered.
    await a.bus.flush();
    a.bus.record(record("permit-grant", "P0"));
    expect(sent()).toBe(0);
    const b = member(channel, "b");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const seen: string[] = [];
    const unsubscribe = b.live.subscribe((m) => {
      if (m.kind === "event") seen.push(`${m.event.type}:${m.event.lockId ?? "-"}`);
    });
    const batch = async () => {
      a.bus.record(record("permit-grant", "P1"));
      a.bus.record(record("permit-release", "P1"));
      a.bus.record(record("rwlock-grant", "R1"));
      a.bus.record(record("rwlock-force-release", "R1"));
      a.bus.record(record("permit-grant", "P2")); // still held at the flush
      a.bus.record(record("permit-release", "P9")); // granted in an earlier batch
      a.bus.record(record("tier", null));
      await a.bus.flush();
    };
    await batch();
    expect(seen).toEqual(["permit-grant:P2", "permit-release:P9", "tier:-"]);
    seen.length = 0;
    await b.bus.flush(); // b says it has a live subscriber
    await batch();
    expect(seen).toEqual([
      "permit-grant:P1",
      "permit-release:P1",
      "rwlock-grant:R1",
      "rwlock-force-release:R1",
      "permit-grant:P2",
      "permit-release:P9",
      "tier:-",
    ]);
    unsubscribe();
  });

  it("a newcomer whose hello Redis did not take says it again until it does, and learns what the fleet holds", async () => {
    await withFakeTimeouts(async () => {
      const channel = new Channel();
      const a = member(channel, "a");
      a.tracker.observe(grant("L1", Date.now()));
      a.permits.seen(permit("P1"));
      // The newcomer's subscription is live but its publisher is not connected yet.
      let hellos = 0;
      let refusing = true;
      channel.refuse = (message) => message.includes('"hello":true') && ++hellos > 0 && refusing;
      const b = member(channel, "b");
      await vi.advanceTimersByTimeAsync(2 * GREET_RETRY_MS);
      expect(hellos).toBe(3);
      expect(b.permits.all()).toEqual([]);

      refusing = false;
      await vi.advanceTimersByTimeAsync(GREET_RETRY_MS);
      expect(hellos).toBe(4);
      expect(b.permits.all().map((p) => [p.tenantId, p.resource, p.businessKey])).toEqual([
        ["t1", "sem:a", "k"],
      ]);
      expect(b.tracker.find({ resource: "res:a", businessKey: "L1" }, "L1")).toBeDefined();
      // Redis took it: no more hellos.
      await vi.advanceTimersByTimeAsync(3 * GREET_RETRY_MS);
      expect(hellos).toBe(4);
      await b.bus.close();
      await a.bus.close();
    });
  });

  it("after Redis restarts, what an instance sent before the others subscribed again reaches them", async () => {
    const channel = new Channel();
    const a = member(channel, "a");
    const b = member(channel, "b");
    await new Promise((resolve) => setTimeout(resolve, 20));
    channel.restart();
    // A's publisher is back first: its statistics and a lease leave while nobody listens,
    // and Redis takes them all the same (a publish to no one is no error).
    for (let i = 0; i < 3; i += 1) a.stats.recordAcquire("res:a", "granted", 1);
    a.tracker.observe(grant("L1", Date.now()));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await a.bus.flush();
    // B subscribes again first: its hello reaches nobody (A is not subscribed yet).
    channel.resubscribe(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(b.stats.totals(60).get("res:a")?.acquires ?? 0).toBe(0);
    // A subscribes again: B answers A's hello, and A says again what it had sent.
    channel.resubscribe(0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(b.stats.totals(60).get("res:a")?.acquires).toBe(3);
    expect(b.tracker.find({ resource: "res:a", businessKey: "L1" }, "L1")?.fence).toBe("1");
    await b.bus.close();
    await a.bus.close();
  });

  it("a bus that closes stops saying hello", async () => {
    await withFakeTimeouts(async () => {
      const channel = new Channel();
      let hellos = 0;
      channel.refuse = (message) => message.includes('"hello":true') && ++hellos > 0;
      const a = member(channel, "a");
      await vi.advanceTimersByTimeAsync(GREET_RETRY_MS);
      expect(hellos).toBe(2);
      await a.bus.close();
      await vi.advanceTimersByTimeAsync(5 * GREET_RETRY_MS);
      expect(hellos).toBe(2);
    });
  });

  it("an answer to a hello that did not leave in full is sent again, as of then", async () => {
    await withFakeTimeouts(async () => {
      const channel = new Channel();
      const a = member(channel, "a");
      a.permits.seen(permit("P1"));
      a.permits.seen(permit("P2"));
      // Redis refuses A's first list of permits (a hiccup on A's publisher).
      let lists = 0;
      channel.refuse = (message) =>
        message.startsWith('{"from":"a",') && message.includes('"permits":') && ++lists === 1;
      const b = member(channel, "b");
      await vi.advanceTimersByTimeAsync(0);
      expect(lists).toBe(1);
      expect(b.permits.all()).toEqual([]);
      // P2 is released before the answer is sent again: the answer says what A holds then.
      a.permits.ended("P2");
      await vi.advanceTimersByTimeAsync(GREET_RETRY_MS);
      expect(lists).toBe(2);
      expect(b.permits.all().map((p) => p.lockId)).toEqual(["P1"]);
      await b.bus.close();
      await a.bus.close();
    });
  });
});
