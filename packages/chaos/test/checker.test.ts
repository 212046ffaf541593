import { describe, expect, it } from "vitest";
import { checkRun } from "../src/checker/check-run.js";
import { renderReport } from "../src/run/render-report.js";
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
    expect(failed(report)).toEqual(["fences only grow per account"]);
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

/**
 * The clean run plus an election on account "L": w8 leads with term 5 and writes, is
 * paused by the pause-holder fault (its late write with term 5 comes back stale), w9 is
 * elected with term 9 at 3 100 and writes; both believed they led from 3 100 to 3 150.
 */
function withLeader(): { events: ChaosEvent[]; facts: RunFacts } {
  const { events, facts } = cleanRun();
  const ledger = [...facts.ledger];
  const w = (mono: number, worker: string, ev: WorkerEvent["ev"], extra: Partial<WorkerEvent>) =>
    events.push({ src: "worker", mono, wall: mono, worker, inc: 0, ev, account: "L", ...extra });
  w(0, "w8", "start", { role: "leader", account: undefined });
  w(0, "w9", "start", { role: "leader", account: undefined });
  w(10, "w8", "acquire", { opId: "w8.0.c0" });
  w(10, "w9", "acquire", { opId: "w9.0.c0" });
  w(20, "w8", "granted", { opId: "w8.0.c0", lockId: "T5", fence: "5", tier: "redis" });
  let balance = 1_000;
  const write = (mono: number, worker: string, lockId: string, fence: string, seq: number) => {
    const opId = `${worker}.0.L${seq}`;
    w(mono, worker, "write", { opId, lockId, outcome: "applied", fence });
    ledger.push({
      id: ledger.length + 1,
      opId,
      account: "L",
      worker,
      lockId,
      fence,
      delta: 2,
      balanceBefore: balance,
      balanceAfter: balance + 2,
      mono: mono - 5,
    });
    balance += 2;
  };
  for (let i = 0; i < 4; i += 1) write(100 + i * 200, "w8", "T5", "5", i);
  w(3_100, "w9", "granted", { opId: "w9.0.c0", lockId: "T9", fence: "9", tier: "redis" });
  for (let i = 0; i < 4; i += 1) write(3_200 + i * 200, "w9", "T9", "9", i);
  // The paused leader resumes: its write is refused, then it learns it was demoted.
  w(3_120, "w8", "write", { opId: "w8.0.L4", lockId: "T5", outcome: "stale", fence: "5" });
  w(3_150, "w8", "lost", { opId: "w8.0.c0", lockId: "T5" });
  w(3_150, "w8", "acquire", { opId: "w8.0.c1" });
  w(5_900, "w9", "release", { opId: "w9.0.c0", lockId: "T9" });
  return {
    events,
    facts: {
      ...facts,
      leaderAccount: "L",
      ledger,
      accounts: [...facts.accounts, { id: "L", initial: 1_000, balance, fence: "9" }],
    },
  };
}

describe("checker: the leader-elected writer", () => {
  it("passes a clean election and counts the demoted leader's stale write and the overlap", () => {
    const { events, facts } = withLeader();
    const report = checkRun(events, facts);
    expect(failed(report)).toEqual([]);
    expect(report.leader).toMatchObject({
      account: "L",
      acceptedWrites: 8,
      staleRejected: 1,
      staleAccepted: 0,
      lost: 0,
      doubled: 0,
      termRegressions: 0,
      overlaps: 1,
      terms: 2,
      leaders: 2,
      termsWithSeveralWriters: 0,
    });
    expect(report.faults[0]!.leader).toMatchObject({ staleRejected: 1, overlaps: 1 });
    expect(report.checks.map((c) => c.name)).toContain("leader: terms only grow");
    // The mutex counters are the mutex accounts' only.
    expect(report.totals.acceptedWrites).toBe(facts.ledger.length - 8);
  });

  it("catches a leader that ignores fences: a demoted leader's late write accepted", () => {
    const { events, facts } = withLeader();
    const last = facts.ledger.at(-1)!;
    // w8 resumes and writes with term 5 after term 9 wrote, and nothing refuses it.
    const zombie = {
      ...last,
      id: last.id + 1,
      opId: "w8.0.L9",
      worker: "w8",
      lockId: "T5",
      fence: "5",
      balanceBefore: last.balanceAfter,
      balanceAfter: last.balanceAfter + 2,
      mono: 5_000,
    };
    const accounts = facts.accounts.map((a) =>
      a.id === "L" ? { ...a, balance: a.balance + 2 } : a,
    );
    const report = checkRun(events, { ...facts, ledger: [...facts.ledger, zombie], accounts });
    expect(failed(report)).toEqual(["leader: no stale write accepted"]);
    expect(report.leader?.staleAccepted).toBe(1);
    expect(report.faults[0]!.leader?.staleAccepted).toBe(1);
  });

  it("catches a lost leader write, a term shared by two leaders and a term that went down", () => {
    const { events, facts } = withLeader();
    // Two grants of term 9 (a fence minted twice), and w8's next election gets term 4.
    events.push({
      src: "worker",
      mono: 4_000,
      wall: 4_000,
      worker: "w8",
      inc: 0,
      ev: "granted",
      account: "L",
      opId: "w8.0.c1",
      lockId: "T4",
      fence: "4",
      tier: "redis",
    });
    const ledger = facts.ledger.map((row) =>
      row.account === "L" && row.opId === "w9.0.L3" ? { ...row, lockId: "T9b", worker: "w8" } : row,
    );
    // The leader account ends 2 short: one accepted write lost.
    const accounts = facts.accounts.map((a) =>
      a.id === "L" ? { ...a, balance: a.balance - 2 } : a,
    );
    const report = checkRun(events, { ...facts, ledger, accounts });
    expect(failed(report)).toEqual(
      expect.arrayContaining([
        "leader: no stale write accepted",
        "leader: no lost or doubled write",
        "leader: terms only grow",
        "leader: one leader's writes per term",
        "final balance = initial + accepted writes",
      ]),
    );
    expect(report.leader?.termsWithSeveralWriters).toBe(1);
    expect(report.leader?.termRegressions).toBe(1);
  });

  it("catches a superseded leader that leads on: its writes refused as stale, no demotion", () => {
    const { events, facts } = withLeader();
    // w8 is never demoted (its lease lived on where it was renewed, though term 9 was
    // granted): it keeps writing with term 5, every claim refused, until the run ends.
    const w8Lost = events.findIndex(
      (e) => e.src === "worker" && e.worker === "w8" && e.ev === "lost",
    );
    events.splice(w8Lost, 1);
    for (let i = 0; i < 20; i += 1) {
      events.push({
        src: "worker",
        mono: 3_300 + i * 300,
        wall: 3_300 + i * 300,
        worker: "w8",
        inc: 0,
        ev: "claimed",
        account: "L",
        opId: `w8.0.L${5 + i}`,
        lockId: "T5",
        outcome: "stale",
        fence: "5",
      });
    }
    const report = checkRun(events, { ...facts, endMono: Math.max(facts.endMono, 10_000) });
    expect(failed(report)).toEqual(["leader: a superseded leader steps down"]);
    expect(
      report.checks.find((c) => c.name === "leader: a superseded leader steps down")?.detail,
    ).toMatch(/w8 led on with term 5 .* \(21 refused\)/);
  });

  it("fails a run whose leader never wrote", () => {
    const { events, facts } = withLeader();
    const report = checkRun(
      events.filter((e) => !(e.src === "worker" && e.account === "L")),
      {
        ...facts,
        ledger: facts.ledger.filter((row) => row.account !== "L"),
        accounts: facts.accounts.map((a) => (a.id === "L" ? { ...a, balance: a.initial } : a)),
      },
    );
    // …and the service never counts as recovered: the leader account is never written again.
    expect(failed(report)).toEqual(["recovery within 5500 ms", "leader elected and wrote"]);
  });
});

/**
 * The clean run plus a semaphore (key "S", 2 permits) guarding slots s0 and s1: holders
 * P1 and P2 write at once (one slot each), then P3 and P4 take over s0 and s1. Each
 * holder writes twice; `dbMs` is the ledger database's clock.
 */
function withSemaphore(): { events: ChaosEvent[]; facts: RunFacts } {
  const { events, facts } = cleanRun();
  const ledger = [...facts.ledger];
  const balances: Record<string, number> = { s0: 500, s1: 500 };
  const w = (mono: number, worker: string, ev: WorkerEvent["ev"], extra: Partial<WorkerEvent>) =>
    events.push({ src: "worker", mono, wall: mono, worker, inc: 0, ev, ...extra });
  const hold = (worker: string, lockId: string, fence: string, slot: string, t0: number) => {
    w(t0 - 10, worker, "acquire", { account: "S", opId: `${worker}.0.${lockId}` });
    w(t0, worker, "granted", { account: "S", opId: `${worker}.0.${lockId}`, lockId, fence });
    for (const [i, part] of ["a", "b"].entries()) {
      const mono = t0 + 50 + i * 100;
      const opId = `${worker}.0.${lockId}${part}`;
      w(mono, worker, "write", { account: slot, opId, lockId, outcome: "applied", fence });
      ledger.push({
        id: ledger.length + 1,
        opId,
        account: slot,
        worker,
        lockId,
        fence,
        delta: 3,
        balanceBefore: balances[slot]!,
        balanceAfter: balances[slot]! + 3,
        mono: mono - 5,
        dbMs: 1_000_000 + mono,
      });
      balances[slot]! += 3;
    }
    w(t0 + 300, worker, "release", { account: "S", lockId });
  };
  hold("w11", "P1", "21", "s0", 200);
  hold("w12", "P2", "22", "s1", 250);
  hold("w13", "P3", "23", "s0", 3_200);
  hold("w11", "P4", "24", "s1", 3_600);
  return {
    events,
    facts: {
      ...facts,
      semaphore: { key: "S", permits: 2, slots: ["s0", "s1"] },
      ledger,
      accounts: [
        ...facts.accounts,
        { id: "s0", initial: 500, balance: balances.s0!, fence: "23" },
        { id: "s1", initial: 500, balance: balances.s1!, fence: "24" },
      ],
    },
  };
}

describe("checker: the semaphore's slots", () => {
  it("passes two holders at once and counts them", () => {
    const { events, facts } = withSemaphore();
    const report = checkRun(events, facts);
    expect(failed(report)).toEqual([]);
    expect(report.semaphore).toMatchObject({
      key: "S",
      permits: 2,
      acceptedWrites: 8,
      staleAccepted: 0,
      lost: 0,
      doubled: 0,
      fenceRegressions: 0,
      overPermitsAccepted: 0,
      maxAcceptedAtOnce: 2,
      grants: 4,
    });
    expect(report.checks.map((c) => c.name)).toContain(
      "semaphore: never more than 2 holders accepted at once",
    );
  });

  it("catches a third holder whose writes were accepted while two others' were", () => {
    const { events, facts } = withSemaphore();
    // A zombie permit holder (fence 19, from before P1 and P2) writes s1 between P2's two
    // writes, and a resource that ignores fences takes it: three holders at once.
    const p2a = facts.ledger.find((row) => row.opId === "w12.0.P2a")!;
    const zombie = {
      ...p2a,
      opId: "w10.0.Z",
      worker: "w10",
      lockId: "PZ",
      fence: "19",
      balanceBefore: p2a.balanceAfter,
      balanceAfter: p2a.balanceAfter + 3,
      mono: p2a.mono + 20,
      dbMs: (p2a.dbMs ?? 0) + 20,
    };
    const shifted = facts.ledger.flatMap((row) => {
      if (row === p2a) return [row, { ...zombie, id: row.id + 0.5 }];
      // Every later s1 row starts from the balance the zombie left.
      if (row.account === "s1" && row.id > p2a.id)
        return [
          { ...row, balanceBefore: row.balanceBefore + 3, balanceAfter: row.balanceAfter + 3 },
        ];
      return [row];
    });
    const accounts = facts.accounts.map((a) =>
      a.id === "s1" ? { ...a, balance: a.balance + 3 } : a,
    );
    const report = checkRun(events, { ...facts, ledger: shifted, accounts });
    expect(failed(report)).toEqual([
      "semaphore: no stale write accepted",
      "semaphore: never more than 2 holders accepted at once",
    ]);
    expect(report.semaphore?.maxAcceptedAtOnce).toBe(3);
    expect(report.baseline.semaphore?.overPermitsAccepted).toBe(1);
  });
});

describe("report of a run whose grants waited for replicas", () => {
  it("says how many replicas were asked for and which grants were undone", () => {
    const { events, facts } = cleanRun();
    const report = checkRun(events, {
      ...facts,
      waitReplicas: 1,
      undoneGrants: { "ledger:account": 3, "ledger:slots": 1 },
    });
    expect(report).toMatchObject({
      ok: true,
      waitReplicas: 1,
      undoneGrants: { "ledger:account": 3, "ledger:slots": 1 },
    });
    expect(renderReport(report)).toContain(
      "Grants waited for 1 replica; undone for want of acknowledgements: ledger:account 3, ledger:slots 1.",
    );
  });

  it("reads an older run without the fields as one that did not wait", () => {
    const { events, facts } = cleanRun();
    const report = checkRun(events, facts);
    expect(report).toMatchObject({ waitReplicas: 0, undoneGrants: {} });
    expect(renderReport(report)).not.toContain("Grants waited");
  });
});
