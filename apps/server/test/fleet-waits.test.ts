// The fleet bus's sharing of waits (docs/decisions/0155): each instance tells the others
// which waits it runs, so any instance lists them and can have them cancelled.
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { REMOTE_WAIT_TRUST_MS, RemoteWaits } from "../src/locks/fleet-waits.js";
import { WaitQueues, type Waiter } from "../src/locks/wait-queues.js";
import { FleetBus, type FleetTransport } from "../src/live/fleet-bus.js";
import { LiveBus } from "../src/live/live-bus.js";
import { LeaseTracker } from "../src/stats/lease-tracker.js";
import { StatsCollector } from "../src/stats/stats-collector.js";

/** An in-process channel standing in for Redis pub/sub (as in fleet-bus.test.ts). */
class Channel {
  readonly members: { onMessage: (m: string) => void; onReady: () => void }[] = [];
  transport(): FleetTransport {
    return {
      countsReceivers: true,
      publish: async (message) => {
        for (const member of this.members) member.onMessage(message);
        return this.members.length;
      },
      subscribe: (onMessage, onReady) => {
        this.members.push({ onMessage, onReady });
        onReady();
      },
      close: async () => undefined,
    };
  }
}

function member(channel: Channel, name: string) {
  const waits = new WaitQueues();
  const bus = new FleetBus({
    transport: channel.transport(),
    instanceId: name,
    live: new LiveBus(),
    tracker: new LeaseTracker(),
    stats: new StatsCollector(),
    logger: pino({ level: "silent" }),
    flushMs: 60_000,
    waits,
  });
  bus.start();
  return { waits, bus };
}

let cancelled: string[] = [];

function wait(queues: WaitQueues, ref: string, tenantId: string, waitId: string | null): Waiter {
  const waiter = queues.enqueue({
    ref,
    fair: true,
    key: { resource: "res:w", businessKey: "k" },
    holder: { clientId: `c-${ref}`, ownerId: `o-${ref}` },
    waitId,
    tenantId,
    wake: () => undefined,
    cancel: () => void cancelled.push(ref),
  });
  queues.placed(waiter);
  return waiter;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("waits on the fleet bus", () => {
  it("are known to the other instances and to a late one, forgotten when they end", async () => {
    const channel = new Channel();
    const a = member(channel, "a");
    const b = member(channel, "b");
    await settle();
    const first = wait(a.waits, "ref-one", "t1", "wait-one1");
    wait(a.waits, "ref-two", "t1", null);
    await a.bus.flush();
    const now = Date.now();
    expect(b.waits.remote.list("res:w", "k", now).map((w) => w.ref)).toEqual([
      "ref-one",
      "ref-two",
    ]);
    expect(b.waits.remote.list("res:w", "k", now)[0]).toMatchObject({
      tenantId: "t1",
      waitId: "wait-one1",
      clientId: "c-ref-one",
      ownerId: "o-ref-one",
      fair: true,
    });
    // A newcomer hears of them in the greeting.
    const c = member(channel, "c");
    await settle();
    expect(c.waits.remote.list("res:w", undefined, Date.now())).toHaveLength(2);
    // Its own are not in its remote view; a's remote view holds none of its own.
    expect(a.waits.remote.size).toBe(0);
    a.waits.remove(first);
    await a.bus.flush();
    expect(b.waits.remote.list("res:w", "k", Date.now()).map((w) => w.ref)).toEqual(["ref-two"]);
    expect(c.waits.remote.list("res:w", "k", Date.now()).map((w) => w.ref)).toEqual(["ref-two"]);
  });

  it("a cancel found through the bus reaches the waiting instance, for the same tenant only", async () => {
    cancelled = [];
    const channel = new Channel();
    const a = member(channel, "a");
    const b = member(channel, "b");
    await settle();
    wait(a.waits, "ref-mine", "t1", "wait-mine1");
    await a.bus.flush();
    // Another tenant's waitId, or a resource outside the caller's reach: nothing found.
    expect(b.waits.findRemote("wait-mine1", "t2")).toBeUndefined();
    expect(b.waits.findRemote("wait-mine1", "t1", () => false)).toBeUndefined();
    // A message naming another tenant (or another waitId) cancels nothing on `a`.
    expect(a.waits.cancelRef("ref-mine", "t2", "wait-mine1")).toBe(false);
    expect(a.waits.cancelRef("ref-mine", "t1", "wait-else1")).toBe(false);
    expect(cancelled).toEqual([]);
    const found = b.waits.findRemote("wait-mine1", "t1");
    expect(found?.wait.ref).toBe("ref-mine");
    expect(await found!.link.requestCancel(found!.wait)).toBe(true);
    expect(cancelled).toEqual(["ref-mine"]);
  });

  it("a lookup for a wait not announced yet waits for the announcement, for the same tenant only, and gives up after its grace", async () => {
    cancelled = [];
    const channel = new Channel();
    const a = member(channel, "a");
    const b = member(channel, "b");
    await settle();
    wait(a.waits, "ref-late", "t1", "wait-late1");
    // b has not heard of it: the bus flushes only when told to here.
    expect(b.waits.findRemote("wait-late1", "t1")).toBeUndefined();
    const found = b.waits.findRemoteSoon("wait-late1", "t1", 5_000);
    const foreign = b.waits.findRemoteSoon("wait-late1", "t2", 300);
    await a.bus.flush();
    expect((await found)?.wait.ref).toBe("ref-late");
    expect(await foreign).toBeUndefined();
    const started = Date.now();
    expect(await b.waits.findRemoteSoon("wait-nobody1", "t1", 200)).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    // Alone on the bus there is nobody to hear from: the answer comes at once (waiting the
    // minute's grace would time the test out).
    const lone = member(new Channel(), "lone");
    await settle();
    await lone.bus.flush();
    expect(await lone.waits.findRemoteSoon("wait-nobody1", "t1", 60_000)).toBeUndefined();
  });

  it("after a shutdown's cancelAll, a wait that begins is cancelled at once", () => {
    cancelled = [];
    const queues = new WaitQueues();
    wait(queues, "ref-before", "t1", "wait-before1");
    queues.cancelAll();
    expect(cancelled).toEqual(["ref-before"]);
    wait(queues, "ref-after", "t1", "wait-after1");
    expect(cancelled).toEqual(["ref-before", "ref-after"]);
  });

  it("another instance's waits lapse when it stops repeating them; malformed entries are ignored", () => {
    const remote = new RemoteWaits();
    const at = 1_000_000;
    const shared = {
      ref: "r1",
      tenantId: "t1",
      resource: "res:w",
      businessKey: "k",
      waitId: "wait-lapse1",
      clientId: "c",
      ownerId: "o",
      since: at,
      fair: false,
    };
    remote.upsert("x", [shared, { ...shared, ref: 7 }, null, "text"], at);
    expect(remote.size).toBe(1);
    // Repeated in time: kept.
    remote.upsert("x", [shared], at + REMOTE_WAIT_TRUST_MS - 1);
    expect(remote.find("t1", "wait-lapse1", at + REMOTE_WAIT_TRUST_MS + 10)?.ref).toBe("r1");
    // An end sent by another instance does not remove x's wait.
    remote.end("y", ["r1"]);
    expect(remote.size).toBe(1);
    // Not repeated: gone from every view, then dropped.
    const late = at + 2 * REMOTE_WAIT_TRUST_MS + 1;
    expect(remote.find("t1", "wait-lapse1", late)).toBeUndefined();
    expect(remote.list("res:w", undefined, late)).toEqual([]);
    remote.expire(late);
    expect(remote.size).toBe(0);
  });
});
