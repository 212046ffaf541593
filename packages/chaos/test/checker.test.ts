import { describe, expect, it } from "vitest";
import { checkRun } from "../src/checker/check-run.js";
import type { RunFacts } from "../src/checker/run-facts.js";
import type { ChaosEvent, WorkerEvent } from "../src/log/events.js";
import type { LedgerRow } from "../src/ledger/ledger-types.js";

/**
 * A hand-made run: one account, workers w0 and w1 taking turns, one paused-holder fault
 * from 1 000 to 4 000 ms (healed at 3 000) in which w0's late write comes back stale.
 */
function cleanRun(): { events: ChaosEvent[]; facts: RunFacts } {
  const events: ChaosEvent[] = [];
  const ledger: LedgerRow[] = [];
  const worker = (
    mono: number,
    w: string,
    ev: WorkerEvent["ev"],
    extra: Partial<WorkerEvent> = {},
  ) =>
    events.push({ src: "worker", mono, wall: mono, worker: w, inc: 0, ev, account: "a", ...extra });
  worker(0, "w0", "start");
  worker(0, "w1", "start");
  let balance = 100;
  let fence = 10;
  let lastFence = 10;
  // Healthy turns every 250 ms, alternating workers, each writing +1.
  for (let t = 100, seq = 0; t < 6_000; t += 250, seq += 1) {
    if (t > 900 && t < 3_000) continue; // the paused holder has the account
    const w = seq % 2 === 0 ? "w0" : "w1";
    const lockId = `L${seq}`;
    // Fences grow with time; the paused holder's (50, granted at 950) sits in between.
    fence = t < 950 ? 10 + seq : 100 + seq;
    lastFence = fence;
    const opId = `${w}.0.${seq}`;
    worker(t, w, "granted", { lockId, fence: String(fence), tier: "redis", opId });
    worker(t + 50, w, "write", { lockId, outcome: "applied", opId });
    worker(t + 60, w, "release", { lockId });
    ledger.push({
      id: ledger.length + 1,
      opId,
      account: "a",
      worker: w,
      lockId,
      fence: String(fence),
      delta: 1,
      balanceBefore: balance,
      balanceAfter: balance + 1,
      mono: t + 40,
    });
    balance += 1;
  }
  // The paused holder: granted at 950 with fence 50 (older than what follows), late write stale.
  worker(940, "w0", "acquire", { opId: "w0.0.paused" });
  worker(950, "w0", "granted", {
    lockId: "Lpaused",
    fence: "50",
    tier: "redis",
    opId: "w0.0.paused",
  });
  worker(3_010, "w0", "write", { lockId: "Lpaused", outcome: "stale" });
  worker(3_020, "w0", "release", { lockId: "Lpaused" });
  const nemesis = (
    mono: number,
    ev: "fault-start" | "fault-heal" | "fault-end" | "observe",
    detail?: Record<string, unknown>,
  ) =>
    events.push({
      src: "nemesis",
      mono,
      wall: mono,
      ev,
      fault: "pause-holder",
      kind: "pause-holder",
      index: 0,
      ...(detail ? { detail } : {}),
    });
  nemesis(1_000, "fault-start");
  nemesis(1_000, "observe", { paused: { worker: "w0", lockId: "Lpaused", account: "a" } });
  nemesis(3_000, "fault-heal");
  nemesis(4_000, "fault-end");
  const facts: RunFacts = {
    seed: 1,
    mode: "test",
    guard: "rmw",
    leaseMs: 2_000,
    recoveryBoundMs: 5_500,
    minAcceptedWrites: 5,
    accounts: [{ id: "a", initial: 100, balance, fence: String(lastFence) }],
    ledger,
    stuckLocks: [],
    processes: { started: 10, stillRunning: [] },
    endMono: 6_000,
  };
  return { events, facts };
}

function failed(report: ReturnType<typeof checkRun>): string[] {
  return report.checks.filter((c) => !c.ok).map((c) => c.name);
}

describe("checker on hand-made logs", () => {
  it("passes a clean run and counts the stale rejection under its fault", () => {
    const { events, facts } = cleanRun();
    const report = checkRun(events, facts);
    expect(failed(report)).toEqual([]);
    expect(report.ok).toBe(true);
    const [fault] = report.faults;
    expect(fault).toMatchObject({
      name: "pause-holder",
      staleRejected: 1,
      staleAccepted: 0,
      lost: 0,
      doubled: 0,
      hit: true,
    });
    expect(fault!.recoveryMs).toBe(350); // w1 at 3 100, then w0 at 3 350
  });

  it("flags a stale write accepted: a lower fence after a higher one", () => {
    const { events, facts } = cleanRun();
    const ledger = [...facts.ledger];
    const last = ledger.at(-1)!;
    ledger.push({
      ...last,
      id: last.id + 1,
      opId: "zombie",
      lockId: "Lz",
      fence: "7",
      balanceBefore: last.balanceAfter,
      balanceAfter: last.balanceAfter + 1,
      mono: 5_990,
    });
    const account = { ...facts.accounts[0]!, balance: last.balanceAfter + 1 };
    const report = checkRun(events, { ...facts, ledger, accounts: [account] });
    expect(failed(report)).toEqual(["no stale write accepted"]);
    expect(report.faults[0]!.staleAccepted).toBe(1);
  });

  it("flags a lost update: two accepted writes that read the same balance", () => {
    const { events, facts } = cleanRun();
    const ledger = facts.ledger.map((row, i) =>
      i === 3
        ? { ...row, balanceBefore: row.balanceBefore - 1, balanceAfter: row.balanceAfter - 1 }
        : row,
    );
    // Row 3 overwrote row 2's result; every later row follows row 3, so the account ends one short.
    const shifted = ledger.map((row, i) =>
      i > 3
        ? { ...row, balanceBefore: row.balanceBefore - 1, balanceAfter: row.balanceAfter - 1 }
        : row,
    );
    const account = { ...facts.accounts[0]!, balance: facts.accounts[0]!.balance - 1 };
    const report = checkRun(events, { ...facts, ledger: shifted, accounts: [account] });
    expect(failed(report)).toEqual(["no lost update", "final balance = initial + accepted writes"]);
    expect(report.baseline.lost).toBe(1);
  });

  it("flags a lost update the worker saw commit but the ledger lacks", () => {
    const { events, facts } = cleanRun();
    events.push({
      src: "worker",
      mono: 5_500,
      wall: 5_500,
      worker: "w1",
      inc: 0,
      ev: "write",
      account: "a",
      lockId: "Lx",
      outcome: "applied",
      opId: "w1.0.999",
    });
    const report = checkRun(events, facts);
    expect(failed(report)).toEqual(["no lost update"]);
    expect(report.faults[0]!.lost).toBe(1);
  });

  it("flags a doubled update: one iteration recorded twice, the balance counting it twice", () => {
    const { events, facts } = cleanRun();
    const last = facts.ledger.at(-1)!;
    const ledger = [
      ...facts.ledger,
      {
        ...last,
        id: last.id + 1,
        balanceBefore: last.balanceAfter,
        balanceAfter: last.balanceAfter + 1,
        mono: last.mono + 1,
      },
    ];
    const account = { ...facts.accounts[0]!, balance: last.balanceAfter + 1 };
    const report = checkRun(events, { ...facts, ledger, accounts: [account] });
    expect(failed(report)).toContain("no doubled update");
    expect(report.faults[0]!.doubled).toBe(1);
  });

  it("flags a doubled update: a balance above what the ledger explains", () => {
    const { events, facts } = cleanRun();
    const account = { ...facts.accounts[0]!, balance: facts.accounts[0]!.balance + 5 };
    const report = checkRun(events, { ...facts, accounts: [account] });
    expect(failed(report)).toEqual([
      "no doubled update",
      "final balance = initial + accepted writes",
    ]);
  });

  it("counts an unfenced overlap under its fault: the paused holder still believed it held", () => {
    const { events, facts } = cleanRun();
    // w0 paused from 950 logs nothing until 3 010; w1's grant at 3 100 is after, so add one inside.
    events.push({
      src: "worker",
      mono: 2_000,
      wall: 2_000,
      worker: "w1",
      inc: 0,
      ev: "granted",
      account: "a",
      lockId: "Lin",
      fence: "60",
      tier: "redis",
    });
    events.push({
      src: "worker",
      mono: 2_100,
      wall: 2_100,
      worker: "w1",
      inc: 0,
      ev: "release",
      account: "a",
      lockId: "Lin",
    });
    const report = checkRun(events, facts);
    expect(report.faults[0]!.unfencedOverlaps).toBe(1);
    expect(report.totals.unfencedOverlaps).toBe(1);
    // Overlaps are what fences are for: counted, not failed.
    expect(report.ok).toBe(true);
  });

  it("flags a fence that did not grow: a grant asked for after a larger fence was granted", () => {
    const { events, facts } = cleanRun();
    // w1 asks at 5 000, after every earlier grant arrived, and gets a fence below them.
    events.push({
      src: "worker",
      mono: 5_000,
      wall: 5_000,
      worker: "w1",
      inc: 0,
      ev: "acquire",
      account: "a",
      opId: "w1.0.late",
    });
    events.push({
      src: "worker",
      mono: 5_010,
      wall: 5_010,
      worker: "w1",
      inc: 0,
      ev: "granted",
      account: "a",
      opId: "w1.0.late",
      lockId: "Llow",
      fence: "12",
      tier: "redis",
    });
    events.push({
      src: "worker",
      mono: 5_020,
      wall: 5_020,
      worker: "w1",
      inc: 0,
      ev: "claimed",
      account: "a",
      lockId: "Llow",
      outcome: "stale",
    });
    events.push({
      src: "worker",
      mono: 5_030,
      wall: 5_030,
      worker: "w1",
      inc: 0,
      ev: "release",
      account: "a",
      lockId: "Llow",
    });
    const report = checkRun(events, facts);
    expect(failed(report)).toEqual(["fences only grow per account (S2)"]);
    expect(report.faults[0]!.fenceRegressions).toBe(1);
  });

  it("fails a fault that did not hit, a recovery that never came, stuck locks and leftover processes", () => {
    const { events, facts } = cleanRun();
    const withoutStale = events.filter((e) => !(e.src === "worker" && e.outcome === "stale"));
    const report = checkRun(withoutStale, {
      ...facts,
      ledger: facts.ledger.filter((row) => row.mono < 3_000),
      accounts: [
        {
          ...facts.accounts[0]!,
          balance: 100 + facts.ledger.filter((row) => row.mono < 3_000).length,
        },
      ],
      stuckLocks: [{ account: "a", lockId: "Lq", holder: "w0" }],
      processes: { started: 10, stillRunning: [{ role: "worker", id: "w3", pid: 4242 }] },
    });
    expect(failed(report)).toEqual(
      expect.arrayContaining([
        "every fault hit",
        "recovery within 5500 ms",
        "no stuck locks",
        "every process stopped",
      ]),
    );
    expect(report.faults[0]!.recoveryMs).toBeNull();
  });

  it("invalidates a run with too few accepted writes", () => {
    const { events, facts } = cleanRun();
    expect(failed(checkRun(events, { ...facts, minAcceptedWrites: 500 }))).toEqual([
      "enough accepted writes",
    ]);
  });
});
