import { appendFileSync } from "node:fs";
import { join } from "node:path";
import type { GuardMode } from "../checker/run-facts.js";
import type { EventLog } from "../log/event-log.js";
import { ManagedChild } from "../procs/managed-child.js";
import type { WorkerRole } from "../worker/worker-config.js";

/** What every worker shares. */
export interface FleetSetup {
  /** The bundled worker (see bundleWorker). */
  readonly entry: string;
  /** Server URLs; worker i talks to server i mod n. */
  readonly serverUrls: readonly string[];
  readonly apiKey: string;
  readonly ledgerUrl: string;
  readonly resource: string;
  readonly accounts: readonly string[];
  /** Workers with an index from here on are election candidates for `leaderAccount`. */
  readonly firstLeader: number;
  readonly leaderAccount: string;
  /** Workers with an index from here on hold semaphore permits and write `semaphoreSlots`. */
  readonly firstSemaphore: number;
  readonly semaphoreResource: string;
  readonly semaphoreKey: string;
  readonly semaphoreSlots: readonly string[];
  readonly guard: GuardMode;
  readonly seed: number;
  readonly runDir: string;
  readonly events: EventLog;
}

/** One worker slot: its current process and incarnation. */
export interface WorkerSlot {
  readonly index: number;
  /** `w<index>` */
  readonly id: string;
  /** `ledger`: a mutex worker; `leader`: an election candidate; `semaphore`: a permit holder. */
  readonly role: WorkerRole;
  inc: number;
  child: ManagedChild;
}

/** The worker processes (mutex workers, then election candidates), restartable after a kill. */
export class WorkerFleet {
  private readonly slots: WorkerSlot[] = [];

  constructor(private readonly setup: FleetSetup) {}

  /** Starts `count` workers in parallel. */
  async start(count: number): Promise<void> {
    const children = await Promise.all(
      Array.from({ length: count }, (_, index) => this.spawn(index, 0)),
    );
    children.forEach((child, index) =>
      this.slots.push({ index, id: `w${index}`, role: this.roleOf(index), inc: 0, child }),
    );
  }

  get size(): number {
    return this.slots.length;
  }

  slot(index: number): WorkerSlot {
    const slot = this.slots[index % this.slots.length];
    if (!slot) throw new Error(`no worker ${index}`);
    return slot;
  }

  byId(id: string): WorkerSlot | undefined {
    return this.slots.find((slot) => slot.id === id);
  }

  /** The server index worker `index` talks to. */
  serverOf(index: number): number {
    return index % this.setup.serverUrls.length;
  }

  /** Starts the next incarnation of a worker whose process died. */
  async restart(index: number): Promise<void> {
    const slot = this.slot(index);
    if (slot.child.running) await slot.child.kill9();
    slot.inc += 1;
    slot.child = await this.spawn(slot.index, slot.inc);
  }

  /** Asks every worker to finish its iteration and exit; SIGKILL after `graceMs`. */
  async stopAll(graceMs: number): Promise<void> {
    for (const slot of this.slots) {
      slot.child.signal("SIGCONT");
      slot.child.send({ type: "stop" });
    }
    await Promise.all(
      this.slots.map(async (slot) => {
        const timer = setTimeout(() => slot.child.killSync(), graceMs);
        await slot.child.exited;
        clearTimeout(timer);
      }),
    );
  }

  private roleOf(index: number): WorkerRole {
    if (index >= this.setup.firstSemaphore) return "semaphore";
    return index >= this.setup.firstLeader ? "leader" : "ledger";
  }

  private async spawn(index: number, inc: number): Promise<ManagedChild> {
    const { events, runDir } = this.setup;
    const id = `w${index}`;
    const child = await ManagedChild.start({
      role: "worker",
      id,
      entry: this.setup.entry,
      env: {
        CHAOS_WORKER_ID: id,
        CHAOS_WORKER_INC: String(inc),
        CHAOS_WARDEN_URL: this.setup.serverUrls[this.serverOf(index)]!,
        CHAOS_API_KEY: this.setup.apiKey,
        CHAOS_LEDGER_URL: this.setup.ledgerUrl,
        CHAOS_RESOURCE: this.setup.resource,
        CHAOS_ACCOUNTS: this.setup.accounts.join(","),
        CHAOS_ROLE: this.roleOf(index),
        CHAOS_LEADER_ACCOUNT: this.setup.leaderAccount,
        CHAOS_SEMAPHORE_RESOURCE: this.setup.semaphoreResource,
        CHAOS_SEMAPHORE_KEY: this.setup.semaphoreKey,
        CHAOS_SEMAPHORE_SLOTS: this.setup.semaphoreSlots.join(","),
        CHAOS_GUARD: this.setup.guard,
        CHAOS_SEED: String(this.setup.seed),
      },
      logPath: join(runDir, `worker-${id}.log`),
      onLine: (line) =>
        events.ingest(line, (other) =>
          appendFileSync(join(runDir, `worker-${id}.log`), `${other}\n`),
        ),
      ipc: true,
      cwd: runDir,
    });
    events.record({
      src: "orchestrator",
      ev: "process-start",
      role: "worker",
      id,
      inc,
      pid: child.pid,
    });
    void child.exited.then(({ code, signal }) =>
      events.record({
        src: "orchestrator",
        ev: "process-exit",
        role: "worker",
        id,
        inc,
        pid: child.pid,
        code,
        signal,
      }),
    );
    return child;
  }
}
