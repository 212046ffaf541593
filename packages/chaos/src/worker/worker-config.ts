import type { GuardMode } from "../checker/run-facts.js";

/** What a worker process is told through its environment. */
export interface WorkerConfig {
  /** `w0`…`w7`. */
  readonly id: string;
  /** 0 at first, +1 per restart after a kill. */
  readonly inc: number;
  readonly wardenUrl: string;
  readonly apiKey: string;
  readonly ledgerUrl: string;
  /** The ledger's lock resource (`deny`: fail-closed). */
  readonly resource: string;
  readonly accounts: readonly string[];
  readonly guard: GuardMode;
  readonly seed: number;
  /** How long one acquire may wait, in ms. */
  readonly waitMs: number;
  /**
   * `ledger`: a mutex worker over `accounts`; `leader`: a candidate in the election of
   * `leaderAccount`, writing to that account only while it leads, fenced by its term.
   */
  readonly role: WorkerRole;
  readonly leaderAccount: string;
  /** `semaphore` workers: the semaphore resource (its key is `semaphoreKey`) and its slots. */
  readonly semaphoreResource: string;
  readonly semaphoreKey: string;
  readonly semaphoreSlots: readonly string[];
}

/** `ledger`: a mutex worker; `leader`: an election candidate; `semaphore`: a permit holder. */
export type WorkerRole = "ledger" | "leader" | "semaphore";

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (value === undefined || value === "") throw new Error(`worker: ${name} is not set`);
  return value;
}

/** Reads the worker's `CHAOS_*` variables; throws naming the first one missing. */
export function loadWorkerConfig(env: NodeJS.ProcessEnv): WorkerConfig {
  const guard = required(env, "CHAOS_GUARD");
  if (guard !== "rmw" && guard !== "fence-only")
    throw new Error(`worker: CHAOS_GUARD ${guard} is not rmw or fence-only`);
  return {
    id: required(env, "CHAOS_WORKER_ID"),
    inc: Number(required(env, "CHAOS_WORKER_INC")),
    wardenUrl: required(env, "CHAOS_WARDEN_URL"),
    apiKey: required(env, "CHAOS_API_KEY"),
    ledgerUrl: required(env, "CHAOS_LEDGER_URL"),
    resource: required(env, "CHAOS_RESOURCE"),
    accounts: required(env, "CHAOS_ACCOUNTS").split(","),
    guard,
    seed: Number(required(env, "CHAOS_SEED")),
    waitMs: Number(env.CHAOS_WAIT_MS ?? 3_000),
    role: env.CHAOS_ROLE === "leader" || env.CHAOS_ROLE === "semaphore" ? env.CHAOS_ROLE : "ledger",
    leaderAccount: env.CHAOS_LEADER_ACCOUNT ?? "leader-0",
    semaphoreResource: env.CHAOS_SEMAPHORE_RESOURCE ?? "ledger:slots",
    semaphoreKey: env.CHAOS_SEMAPHORE_KEY ?? "slots",
    semaphoreSlots: (env.CHAOS_SEMAPHORE_SLOTS ?? "slot-0,slot-1").split(","),
  };
}
