import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  InvalidArgumentError,
  LeaseLostError,
  UnknownResourceError,
  type Campaign,
  type CampaignOptions,
  type DemotionReason,
  type LeaderInfo,
  type Lock,
  type Warden,
} from "../src/index.js";
import { runFixture } from "./support/child.js";
import { startStack, uid, type Stack } from "./support/stack.js";
import { startTcpProxy } from "./support/tcp-proxy.js";
import { delay, until } from "./support/until.js";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.close();
});

/** One callback of one candidate, in the order they ran (one process, one log). */
interface Event {
  readonly at: number;
  readonly who: string;
  readonly kind: "elected" | "demoted";
  readonly term: string;
  readonly reason?: DemotionReason;
  /** The term's lock (elected) — its last known expiry is a lower bound of the store's. */
  readonly lock?: Lock;
}

function recorder(log: Event[], who: string): CampaignOptions {
  return {
    onElected: (term, { lock }) => {
      log.push({ at: performance.now(), who, kind: "elected", term, lock });
    },
    onDemoted: (reason, term) => {
      log.push({ at: performance.now(), who, kind: "demoted", term, reason });
    },
  };
}

/** Replays the log: never two leaders at once, each demotion ends its own term, terms grow. */
function checkLog(log: readonly Event[]): void {
  let leader: Event | null = null;
  let lastTerm = -1n;
  for (const event of log) {
    if (event.kind === "elected") {
      expect(leader, `${event.who} elected while ${leader?.who} leads`).toBeNull();
      expect(BigInt(event.term)).toBeGreaterThan(lastTerm);
      lastTerm = BigInt(event.term);
      leader = event;
    } else {
      expect(leader?.who).toBe(event.who);
      expect(event.term).toBe(leader?.term);
      leader = null;
    }
  }
}

describe("warden.campaign", () => {
  test("three candidates: one leader at a time, terms grow, resign hands over, watch follows", async () => {
    const resource = await stack.resource("election", { defaultLeaseMs: 2_000 });
    const log: Event[] = [];
    const clients = new Map<string, Warden>([
      ["a", stack.client()],
      ["b", stack.client()],
      ["c", stack.client()],
    ]);
    const campaigns = new Map<string, Campaign>();
    const join = async (who: string) =>
      campaigns.set(who, await clients.get(who)!.campaign(resource, "leader", recorder(log, who)));
    for (const who of clients.keys()) await join(who);

    // A follower's view, by polling: it must see the terms go up.
    const watcher = campaigns.get("a")!;
    const stopWatching = new AbortController();
    const seen: Array<LeaderInfo | null> = [];
    const watching = (async () => {
      for await (const leader of watcher.watch({ intervalMs: 50, signal: stopWatching.signal })) {
        seen.push(leader);
      }
    })();

    const handovers = 5;
    for (let round = 0; round < handovers; round++) {
      const [who, leader] = await until(
        () => [...campaigns].find(([, c]) => c.isLeader),
        15_000,
        25,
        "a leader",
      );
      expect([...campaigns.values()].filter((c) => c.isLeader)).toHaveLength(1);
      // What the server says agrees with the candidate, from anyone's point of view.
      const fromLeader = await leader.observe();
      expect(fromLeader).toMatchObject({ term: leader.term, self: true });
      expect(fromLeader!.holder.clientId).toBe(clients.get(who)!.clientId);
      const follower = [...campaigns].find(([, c]) => !c.isLeader)![1];
      expect(await follower.observe()).toMatchObject({ term: leader.term, self: false });
      // Wait until the follower saw this term, then hand over.
      await until(() => seen.some((l) => l?.term === leader.term), 10_000);
      await leader.resign();
      expect(leader.isLeader).toBe(false);
      await join(who); // back in the queue as a new candidate
    }
    await until(() => [...campaigns.values()].some((c) => c.isLeader), 15_000);
    stopWatching.abort();
    await watching;
    await Promise.all([...campaigns.values()].map((c) => c.resign()));
    expect(await watcher.observe()).toBeNull();

    checkLog(log);
    const elected = log.filter((e) => e.kind === "elected");
    expect(elected.length).toBeGreaterThanOrEqual(handovers + 1);
    expect(log.filter((e) => e.reason === "resigned").length).toBeGreaterThanOrEqual(handovers + 1);
    // The follower saw at least every handed-over term, in increasing order.
    const terms = seen.flatMap((l) => (l?.term ? [BigInt(l.term)] : []));
    expect(terms.length).toBeGreaterThanOrEqual(handovers);
    terms.forEach((term, i) => i > 0 && expect(term).toBeGreaterThan(terms[i - 1]!));
    for (const term of terms) expect(elected.map((e) => BigInt(e.term))).toContain(term);
  });

  test("a leader cut off without releasing: demoted before the next leader is elected, who is granted after the lease ended", async () => {
    const resource = await stack.resource("election-cut", { defaultLeaseMs: 1_500 });
    const proxy = await startTcpProxy(Number(new URL(stack.url).port));
    const log: Event[] = [];
    try {
      const doomed = stack.client({ url: proxy.url, reconnectMaxDelayMs: 200 });
      const survivor = stack.client();
      const first = await doomed.campaign(resource, "leader", recorder(log, "doomed"));
      await until(() => first.isLeader, 10_000);
      const second = await survivor.campaign(resource, "leader", recorder(log, "survivor"));
      await delay(300);
      expect(second.isLeader).toBe(false);
      expect((await second.observe())?.holder.clientId).toBe(doomed.clientId);

      // The leader's process is still running but can no longer reach the server: it
      // neither renews nor releases, as if it had died without closing.
      await proxy.close();
      await until(() => second.isLeader, 20_000, 25, "the survivor elected");

      const demoted = log.find((e) => e.who === "doomed" && e.kind === "demoted")!;
      const oldTerm = log.find((e) => e.who === "doomed" && e.kind === "elected")!;
      const newTerm = log.find((e) => e.who === "survivor" && e.kind === "elected")!;
      expect(demoted).toMatchObject({ reason: "lease-lost", term: oldTerm.term });
      // Ordering, not durations: the old leader knew it was out before the new one was in.
      expect(log.indexOf(demoted)).toBeLessThan(log.indexOf(newTerm));
      expect(demoted.at).toBeLessThan(newTerm.at);
      expect(first.isLeader).toBe(false);
      expect(BigInt(newTerm.term)).toBeGreaterThan(BigInt(oldTerm.term));
      // The store granted the new term only once the old lease had run out (store clock;
      // the lock's last known expiry is a lower bound of the store's).
      const now = await second.observe();
      expect(now).toMatchObject({ term: newTerm.term, self: true });
      expect(now!.since).toBeGreaterThanOrEqual(oldTerm.lock!.expiresAt);
      checkLog(log);
      await second.resign();
    } finally {
      await proxy.close().catch(() => undefined);
    }
  });

  test("a leader killed (SIGKILL, nothing released): the next is elected after its lease ended, with a larger term", async () => {
    const resource = await stack.resource("election-kill", { defaultLeaseMs: 3_000 });
    const child = runFixture("candidate", [stack.url, stack.apiKey, resource, "leader"]);
    try {
      const [, oldTerm, oldLockId] = (await child.line(/^elected /, 30_000)).split(" ");
      const log: Event[] = [];
      const survivor = await stack.client().campaign(resource, "leader", recorder(log, "survivor"));
      await delay(300);
      expect(survivor.isLeader).toBe(false);
      child.process.kill("SIGKILL");
      await child.exited;
      // Killed without a release: the dead leader's lease is still in the store...
      const dead = await survivor.observe();
      expect(dead).toMatchObject({ lockId: oldLockId, term: oldTerm, self: false });
      await until(() => survivor.isLeader, 20_000, 25, "the survivor elected");
      // ...and the survivor was granted only once it had run out (store clock).
      const now = await survivor.observe();
      expect(now).toMatchObject({ self: true, term: survivor.term });
      expect(now!.since).toBeGreaterThanOrEqual(dead!.expiresAt);
      expect(BigInt(now!.term!)).toBeGreaterThan(BigInt(oldTerm!));
      expect(log.map((e) => e.kind)).toEqual(["elected"]);
      await survivor.resign();
    } finally {
      child.process.kill("SIGKILL");
    }
  }, 90_000); // a child process under tsx starts slowly on a loaded box

  test("a leader whose lock is force-released is demoted, then campaigns again for a new term", async () => {
    const resource = await stack.resource("election-force", { defaultLeaseMs: 1_500 });
    const log: Event[] = [];
    const warden = stack.client();
    const candidate = await warden.campaign(resource, "leader", recorder(log, "only"));
    await until(() => candidate.isLeader, 10_000);
    const firstTerm = candidate.term!;
    const leadership = log[0]!.lock!;
    const signal = candidate.signal!;
    await stack.server().services.locks.forceRelease({
      resource,
      businessKey: "leader",
      lockId: leadership.lockId,
    });
    await until(() => log.length >= 3, 10_000, 25, "demoted and elected again");
    expect(log.map((e) => e.kind)).toEqual(["elected", "demoted", "elected"]);
    expect(log[1]).toMatchObject({ reason: "lease-lost", term: firstTerm });
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(LeaseLostError);
    expect(BigInt(candidate.term!)).toBeGreaterThan(BigInt(firstTerm));
    checkLog(log);
    await candidate.resign();
    expect(log.at(-1)).toMatchObject({ kind: "demoted", reason: "resigned" });
    expect(await warden.inspect(resource, "leader")).toBeNull();
    await candidate.ended;
  });

  test("closing the leader's client ends its campaign; the next candidate is elected", async () => {
    const resource = await stack.resource("election-close", { defaultLeaseMs: 2_000 });
    const log: Event[] = [];
    const leaving = stack.client();
    const staying = stack.client();
    const first = await leaving.campaign(resource, "leader", recorder(log, "leaving"));
    await until(() => first.isLeader, 10_000);
    const second = await staying.campaign(resource, "leader", recorder(log, "staying"));
    await leaving.close();
    await first.ended;
    await until(() => second.isLeader, 10_000);
    expect(log.map((e) => `${e.who}:${e.kind}`)).toEqual([
      "leaving:elected",
      "leaving:demoted",
      "staying:elected",
    ]);
    checkLog(log);
    await second.resign();
  });

  test("bad input is typed and campaigns for nothing", async () => {
    const warden = stack.client();
    await expect(warden.campaign(`nope:${uid()}`, "leader")).rejects.toBeInstanceOf(
      UnknownResourceError,
    );
    const resource = await stack.resource("election-bad");
    await expect(warden.campaign(resource, "")).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(warden.campaign(resource, "leader", { leaseMs: 0 })).rejects.toMatchObject({
      field: "leaseMs",
    });
    await expect(
      warden.campaign(resource, "leader", { onElected: "yes" as never }),
    ).rejects.toMatchObject({ field: "onElected" });
    await delay(100);
    expect(await warden.inspect(resource, "leader")).toBeNull();
  });
});
