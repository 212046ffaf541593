import { afterAll, beforeAll, expect, test } from "vitest";
import { claimFence, LeaseLostError, type DemotionReason, type Leadership } from "../src/index.js";
import { createLedger, type Ledger } from "./support/ledger.js";
import { startStack, type Stack } from "./support/stack.js";
import { until } from "./support/until.js";

// A leader whose fence guard finds a later term at the resource steps down at once, even
// though its own lease still renews: found by the chaos run, where a leader's lease lived on
// in the tier that granted it while another tier granted the key again, and the old leader
// led on for 90 s with every write refused as stale, keeping the other candidates out.

let stack: Stack;
let ledger: Ledger;

beforeAll(async () => {
  stack = await startStack();
  ledger = await createLedger(stack.db.url);
});

afterAll(async () => {
  await ledger?.close();
  await stack?.close();
});

interface Event {
  readonly who: string;
  readonly kind: "elected" | "demoted";
  readonly term: string;
  readonly reason?: DemotionReason;
  readonly cause?: unknown;
}

test("a stale guard outcome ends the term: the leader is demoted, releases, and the next candidate leads with a larger term", async () => {
  const resource = await stack.resource("superseded", { defaultLeaseMs: 2_000 });
  await ledger.insert(1, 0);
  const target = { table: ledger.table, where: { id: 1 } };
  const log: Event[] = [];
  const terms = new Map<string, Leadership>();
  const candidate = (who: string) =>
    stack.client().campaign(resource, "leader", {
      onElected: (term, leadership) => {
        terms.set(who, leadership);
        log.push({ who, kind: "elected", term });
      },
      onDemoted: (reason, term, cause) => log.push({ who, kind: "demoted", term, reason, cause }),
    });
  const a = await candidate("a");
  const first = await until(() => terms.get("a"), 10_000, 25, "a elected");
  const b = await candidate("b");

  // The leader's own claim is applied and changes nothing about its term.
  expect((await claimFence(ledger.pool, first.lock, target)).outcome).toBe("applied");
  expect(a.isLeader).toBe(true);

  // A later term claims the row (as a leader granted elsewhere would), and the old leader's
  // next guarded step finds it: stale, and the term ends in that same call.
  const later = (BigInt(first.term) + 1_000n).toString();
  await ledger.pool.execute(`UPDATE \`${ledger.table}\` SET fence = ? WHERE id = 1`, [later]);
  const refused = await claimFence(ledger.pool, first.lock, target);
  expect(refused.outcome).toBe("stale");
  expect(first.signal.aborted).toBe(true);
  expect(a.isLeader).toBe(false);
  const demotion = log.find((e) => e.who === "a" && e.kind === "demoted");
  expect(demotion?.reason).toBe("lease-lost");
  expect(demotion?.cause).toBeInstanceOf(LeaseLostError);
  expect((demotion?.cause as Error).message).toMatch(/superseded/);

  // Its lock is released, so the other candidate is elected without waiting out a lease.
  const second = await until(() => terms.get("b"), 10_000, 25, "b elected");
  expect(BigInt(second.term)).toBeGreaterThan(BigInt(first.term));
  const order = log.map((e) => `${e.who}:${e.kind}`);
  expect(order.indexOf("a:demoted")).toBeLessThan(order.indexOf("b:elected"));
  // The demoted candidate campaigns again and stays a follower.
  expect(a.failure).toBeNull();
  await b.resign();
  await until(() => a.isLeader, 10_000, 25, "a elected again");
  expect(BigInt(a.term!)).toBeGreaterThan(BigInt(second.term));
  await a.resign();
});
