import { startRedis } from "@warden/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RELEASE_CHANNEL, RedisReleaseBridge } from "../src/locks/redis-release-bridge.js";
import { ReleaseNotifier } from "../src/locks/release-notifier.js";
import { uid } from "./support/harness.js";

type StartedRedis = Awaited<ReturnType<typeof startRedis>>;

let redis: StartedRedis;
const open: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const bridge of open.splice(0)) await bridge.close();
  await redis?.stop();
});

async function eventually(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`not true within ${timeoutMs} ms`);
}

function bridge(name: string, onRelease: (key: string) => void = () => undefined) {
  const made = new RedisReleaseBridge({ mode: "standalone", url: redis.url }, `${name}-${uid()}`);
  made.subscribe((key) => onRelease(`${key.resource}/${key.businessKey}`));
  open.push(made);
  return made;
}

async function publishCalls(): Promise<number> {
  const client = new Redis(redis.url);
  try {
    const info = await client.info("commandstats");
    return Number(/cmdstat_publish:calls=(\d+)/.exec(info)?.[1] ?? 0);
  } finally {
    client.disconnect();
  }
}

it("a lone instance stops publishing releases, and publishes again once another greets", async () => {
  const first = bridge("first");
  expect(first.publishing).toBe(true);
  // The first release's PUBLISH counts one receiver (its own subscriber): alone.
  await new Promise((resolve) => setTimeout(resolve, 100));
  first.publish({ resource: "r", businessKey: "before" });
  await eventually(() => !first.publishing, 5_000);
  const callsAlone = await publishCalls();
  for (let i = 0; i < 50; i += 1) first.publish({ resource: "r", businessKey: `alone-${i}` });
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await publishCalls()).toBe(callsAlone);

  // A second instance greets when its subscription starts: the first publishes to it at once.
  const seen: string[] = [];
  const second = bridge("second", (key) => seen.push(key));
  await eventually(() => first.publishing, 5_000);
  first.publish({ resource: "r", businessKey: "after" });
  await eventually(() => seen.includes("r/after"), 5_000);
  expect(seen).not.toContain("r/alone-0");

  // The second leaves: the next count says alone again.
  await second.close();
  open.splice(open.indexOf(second), 1);
  await eventually(() => {
    first.publish({ resource: "r", businessKey: "later" });
    return !first.publishing;
  }, 5_000);
  await first.close();
  open.splice(open.indexOf(first), 1);
}, 30_000);

it("a listener that never greets (an older instance) is found by the next subscriber count", async () => {
  const lone = bridge("lone");
  await new Promise((resolve) => setTimeout(resolve, 100));
  lone.publish({ resource: "r", businessKey: "first" });
  await eventually(() => !lone.publishing, 5_000);

  const old = new Redis(redis.url);
  const received: string[] = [];
  old.on("message", (_channel: string, message: string) => received.push(message));
  try {
    await old.subscribe(RELEASE_CHANNEL);
    // Counted at least once a second while alone.
    await eventually(() => lone.publishing, 5_000);
    lone.publish({ resource: "r", businessKey: "found" });
    await eventually(() => received.some((m) => m.includes('"found"')), 5_000);
    const message = JSON.parse(received.find((m) => m.includes('"found"')) ?? "[]") as unknown[];
    // The release's message is unchanged: [instanceId, resource, businessKey].
    expect(message).toHaveLength(3);
    expect(message.slice(1)).toEqual(["r", "found"]);
  } finally {
    old.disconnect();
    await lone.close();
    open.splice(open.indexOf(lone), 1);
  }
}, 30_000);

it("the releases of one turn leave in one message, and every key arrives", async () => {
  const seen: string[] = [];
  const sender = bridge("sender");
  bridge("receiver", (key) => seen.push(key));
  // Until the receiver's subscription is up, a release may reach nobody: publish until one
  // arrives.
  await eventually(() => {
    sender.publish({ resource: "r", businessKey: "warm-up" });
    return seen.includes("r/warm-up");
  }, 5_000);
  // Its stray copies are out before counting.
  await new Promise((resolve) => setTimeout(resolve, 100));

  const before = await publishCalls();
  const keys = Array.from({ length: 1_200 }, (_, i) => `turn-${i}`);
  // One turn; a business key with the characters JSON escapes arrives unchanged.
  for (const businessKey of keys) sender.publish({ resource: "r", businessKey });
  sender.publish({ resource: "r:ü", businessKey: 'quote"back\\slash' });
  await eventually(() => seen.includes('r:ü/quote"back\\slash'), 5_000);
  expect(seen.filter((key) => key.startsWith("r/turn-"))).toEqual(keys.map((k) => `r/${k}`));
  // 1 201 keys at most 500 to a message: three PUBLISHes, not 1 201.
  expect((await publishCalls()) - before).toBe(3);
}, 30_000);

it("the notifier wakes this instance's listeners of a key, and an unsubscribe called twice counts once", () => {
  const notifier = new ReleaseNotifier();
  const key = { resource: "r", businessKey: "k" };
  let first = 0;
  let second = 0;
  const offFirst = notifier.onRelease(key, () => (first += 1));
  const offSecond = notifier.onRelease(key, () => (second += 1));
  notifier.released(key);
  notifier.released({ resource: "r", businessKey: "other" });
  expect([first, second]).toEqual([1, 1]);
  offFirst();
  offFirst();
  // The second listener is still counted: a repeated unsubscribe must not silence it.
  notifier.released(key);
  expect([first, second]).toEqual([1, 2]);
  offSecond();
  notifier.released(key);
  expect([first, second]).toEqual([1, 2]);
  // A listener added after all were gone is woken again.
  const offThird = notifier.onRelease(key, () => (first += 10));
  notifier.released(key);
  expect(first).toBe(11);
  offThird();
});

it("a release wakes the listeners of its key as they were when it began, in the order they came", () => {
  const notifier = new ReleaseNotifier();
  const key = { resource: "r", businessKey: "k" };
  const calls: string[] = [];
  const offs: (() => void)[] = [];
  // The first listener unsubscribes the third and adds a fourth while the release runs.
  offs.push(
    notifier.onRelease(key, () => {
      calls.push("a");
      offs[2]!();
      offs.push(notifier.onRelease(key, () => calls.push("d")));
    }),
  );
  offs.push(notifier.onRelease(key, () => calls.push("b")));
  offs.push(notifier.onRelease(key, () => calls.push("c")));
  notifier.released(key);
  expect(calls).toEqual(["a", "b", "c"]);
  calls.length = 0;
  offs[0]!();
  notifier.released(key);
  expect(calls).toEqual(["b", "d"]);
  // The same function twice counts twice, and each unsubscribe takes one of them away.
  const twice = () => calls.push("t");
  const offTwiceA = notifier.onRelease(key, twice);
  const offTwiceB = notifier.onRelease(key, twice);
  offs[1]!();
  offs[3]!();
  calls.length = 0;
  notifier.released(key);
  expect(calls).toEqual(["t", "t"]);
  offTwiceA();
  calls.length = 0;
  notifier.released(key);
  expect(calls).toEqual(["t"]);
  offTwiceB();
  calls.length = 0;
  notifier.released(key);
  expect(calls).toEqual([]);
});
