/**
 * The JSON lines a chaos run writes to `events.jsonl`. Every line carries `mono` (ms on
 * the machine-wide monotonic clock, see {@link monoNow}) to order lines from different
 * processes, and `wall` (ms since the epoch) for people.
 */
interface Stamped {
  readonly mono: number;
  readonly wall: number;
}

/** What a worker did. */
export type WorkerStep =
  /** The process is up (with its incarnation). */
  | "start"
  /** Asking for the lock. */
  | "acquire"
  /** The SDK granted the lock: lockId, fence, tier. */
  | "granted"
  /** Acquire threw: `error` is the SDK error's name (LockUnavailableError, …). */
  | "acquire-failed"
  /** The read-modify-write guard claimed the row (outcome applied/duplicate/stale/conflict). */
  | "claimed"
  /** The account row was read: `balance`. */
  | "read"
  /** About to SIGSTOP itself after the read (the sharpest case). */
  | "self-pause"
  /** The guarded write's outcome; `applied` is logged after COMMIT only. */
  | "write"
  /** The lock's signal aborted: the SDK says the lease may be lost. */
  | "lost"
  /** About to release: the worker stops believing it holds the lock. */
  | "release"
  /** Something the worker did not expect; `error` and `message` say what. */
  | "error"
  /** Leaving after a stop request. */
  | "exit";

/** Outcome of a guard: the SDK's four, `error` (the statement failed) or `refused` (no fence). */
export type WriteOutcome = "applied" | "duplicate" | "stale" | "conflict" | "error" | "refused";

/** One worker line. */
export interface WorkerEvent extends Stamped {
  readonly src: "worker";
  /** `w0`…`w7`; a restarted worker keeps its id and gets a new `inc`. */
  readonly worker: string;
  readonly inc: number;
  readonly ev: WorkerStep;
  /** On `start`: `ledger` (a mutex worker), `leader` (a candidate), `semaphore` (a permit holder). */
  readonly role?: "ledger" | "leader" | "semaphore";
  readonly account?: string;
  /** `<worker>.<inc>.<seq>`: one iteration, and the ledger row it writes. */
  readonly opId?: string;
  readonly lockId?: string;
  readonly fence?: string | null;
  readonly tier?: string;
  readonly outcome?: WriteOutcome;
  readonly balance?: number;
  readonly delta?: number;
  /** Whether `lock.signal` had aborted when the worker wrote anyway. */
  readonly signalAborted?: boolean;
  readonly error?: string;
  readonly message?: string;
}

/** What the nemesis did or saw. */
export interface NemesisEvent extends Stamped {
  readonly src: "nemesis";
  /** start: injected; heal: undone; end: healthy gap over; observe: evidence. */
  readonly ev: "fault-start" | "fault-heal" | "fault-end" | "observe";
  readonly fault: string;
  readonly kind: string;
  readonly index: number;
  readonly detail?: Readonly<Record<string, unknown>>;
}

/** One scrape of a server's /metrics. */
export interface ObserverEvent extends Stamped {
  readonly src: "observer";
  /** `a`, `b`, `c`… */
  readonly server: string;
  readonly up: boolean;
  readonly tier?: string;
  readonly epoch?: number;
  readonly spooled?: number;
  /** The server's wall clock (its HTTP Date header) minus ours, in ms (±1 s resolution). */
  readonly skewMs?: number;
}

/** Process life and run phases. */
export interface OrchestratorEvent extends Stamped {
  readonly src: "orchestrator";
  readonly ev: "phase" | "process-start" | "process-exit";
  readonly phase?: string;
  /** `worker`, `server`, `proxy`. */
  readonly role?: string;
  readonly id?: string;
  /** A worker's incarnation (it is restarted after a kill -9). */
  readonly inc?: number;
  readonly pid?: number;
  readonly code?: number | null;
  readonly signal?: string | null;
}

/** Any line of `events.jsonl`. */
export type ChaosEvent = WorkerEvent | NemesisEvent | ObserverEvent | OrchestratorEvent;
